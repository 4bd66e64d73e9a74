import Dashboard
import Testing
import UICore

/// `--insecure` must never be silent: the header says so in the error colour.
@Suite(.timeLimit(.minutes(15))) struct InsecureHeaderTests {
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

    /// At 80 columns the backend has about 33: the proxy (40 here) cannot fit and is cut like a URL.
    @Test(arguments: [(120, 40), (160, 48)])
    func theProxyStaysInViewWhenTheURLsGiveWay(_ width: Int, _ height: Int) {
        var state = Fixtures.running()
        state.backend =
            "https://tokens.example.com/token/consumer/{tripId} | https://tokens.example.com/token/driver/{vehicleId}"
            + " via proxy http://‹hidden›@10.0.0.1:3128"
        let header = Renderer.render(state, width: width, height: height).lines[0]
        #expect(
            header.contains(width >= 160 ? "https://tokens.example.com/token/consumer/" : "https://"),
            "the URL's start shows: \(header)")
        #expect(header.contains("… via proxy http://‹hidden›@10.0.0.1:3128"), "\(header)")
    }
}
