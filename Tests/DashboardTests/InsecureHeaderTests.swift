import Dashboard
import UICore
import Testing

/// `--insecure` must never be silent: the header says so in the error colour.
@Suite struct InsecureHeaderTests {
    @Test(arguments: [(80, 24), (160, 48)])
    func anInsecureBackendIsFlaggedInRed(_ width: Int, _ height: Int) throws {
        var state = Fixtures.running()
        #expect(!Renderer.render(state, width: width, height: height).lines[0].contains("TLS NOT VERIFIED"))
        state.insecure = true
        let canvas = Renderer.render(state, width: width, height: height)
        let header = canvas.lines[0]
        #expect(header.contains("⚠ TLS NOT VERIFIED"))
        let x = try #require(Array(header).firstIndex(of: "⚠"))
        #expect(canvas[x, 0].role == .error)
        #expect(canvas[x + 5, 0].role == .error)
        #expect(header.contains("tokendash"), "the rest of the header still shows")
    }
}
