import BoundedYAML
import Foundation
import Testing
import Yams

@Suite(.timeLimit(.minutes(15))) struct BoundedYAMLTests {
    /// The classic chain: each anchor a list of nine aliases to the one before, 9^9 nodes expanded.
    static func chain(indent: String = "") -> String {
        (0..<9).map { i in
            let items = Array(repeating: i == 0 ? "lol" : "*a\(i - 1)", count: 9).joined(separator: ",")
            return "\(indent)a\(i): &a\(i) [\(items)]\n"
        }.joined()
    }

    static func threadCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    func problem(_ yaml: String) -> YAMLProblem? {
        do { _ = try BoundedYAML.compose(yaml) } catch { return error }
        return nil
    }

    @Test func aBombUsedAsAKeyIsRefusedFastAtTheLineThatPassesTheBudget() throws {
        // Yams' duplicate-key check hashed all 9^9 nodes of this key: it never finished.
        let yaml = "x:\n" + Self.chain(indent: "  ") + "y: {*a8 : lol}\n"
        // This thread's CPU time, not wall time: compose runs on this one thread, and a full test
        // run on two cores stretched its wall time past the bound while its CPU stayed far below.
        let started = Self.threadCPUSeconds()
        let refused = try #require(problem(yaml))
        let took = Self.threadCPUSeconds() - started
        #expect(refused.reason == "aliases expand past 10000 nodes (an alias bomb?); refused")
        // a3 expands to 7,381 nodes: a4 (line 6) passes 10,000 at its second alias.
        #expect(refused.line == 6)
        #expect(took < 0.1, "\(took) s of CPU")
    }

    @Test func aBombUsedAsAValueOrASequenceItemIsRefusedToo() {
        #expect(problem(Self.chain() + "y: *a8\n")?.line == 5)
        #expect(problem("- &a [1, 2]\n- [*a, *a, *a]\n") == nil)
        let wide =
            "- &a [" + Array(repeating: "x", count: 100).joined(separator: ", ") + "]\n- ["
            + Array(repeating: "*a", count: 100).joined(separator: ", ") + "]\n"
        #expect(problem(wide)?.reason.hasPrefix("aliases expand past 10000") == true)
    }

    @Test func aPaletteOfAnchorsAsThemesUseItIsRead() throws {
        let yaml = """
            palette: { accent: &accent cyan, warn: &warn { fg: yellow, bold: true } }
            frame: { border: { fg: *accent }, focused: *warn }
            status: { ok: *accent, warning: *warn, "error": "*not-an-alias" }
            """
        let root = try #require(try BoundedYAML.compose(yaml))
        #expect(root["frame"]?["border"]?["fg"]?.string == "cyan")
        #expect(root["status"]?["warning"]?["bold"]?.bool == true)
        #expect(root["status"]?["error"]?.string == "*not-an-alias")
    }

    @Test func anAliasBeforeItsAnchorIsYamsErrorWithTheAliasAsWritten() throws {
        let refused = try #require(problem("a: *later\nb: &later 1\n"))
        #expect(refused.line == 1)
        #expect(refused.reason.contains("undefined alias"), "\(refused.reason)")
        // Said with the aliases as written, not as the budget's rewrite of the text holds them.
        let twice = try #require(problem("k0: &k x\nm: {*k: 1, *k: 2}\n"))
        #expect(twice.reason == "*k given twice in one mapping")
    }

    @Test func nestingPastLibyamlsLimitIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(problem(deep)?.reason.contains("nesting") == true)
    }

    @Test func bytesThatAreNotUTF8AreNamedAtTheirLine() {
        var data = Data("a: 1\nb: 2\nc: ".utf8)
        data.append(contentsOf: [0xC3, 0x28, 0x0A])
        #expect(throws: YAMLProblem(line: 3, "not UTF-8 text")) { try BoundedYAML.text(data) }
        #expect(throws: YAMLProblem(line: 1, "not UTF-8 text")) { try BoundedYAML.text(Data([0xFF, 0xFE, 0x00])) }
        #expect(throws: Never.self) { try BoundedYAML.text(Data("é: ü\n".utf8)) }
    }

    @Test func aFileLargerThanAMebibyteIsRefusedUnreadPastIt() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString).yaml")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: UInt8(ascii: "#"), count: BoundedYAML.maximumBytes + 10).write(
            to: URL(fileURLWithPath: path))
        #expect(throws: YAMLProblem(line: nil, "larger than 1 MiB")) { try BoundedYAML.read(path) }
        // /dev/zero never ends: reading stops at the limit all the same.
        #expect(throws: YAMLProblem(line: nil, "larger than 1 MiB")) { try BoundedYAML.read("/dev/zero") }
    }
}
