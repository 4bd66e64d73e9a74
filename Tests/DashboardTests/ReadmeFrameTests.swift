import Foundation
import Testing

/// The README's picture of the dashboard is a golden frame, character for character: the golden
/// file is held to the renderer by `GoldenFrameTests`, and this holds the README to the file, so
/// the first thing a newcomer sees cannot drift from what the dashboard draws.
@Suite(.timeLimit(.minutes(15))) struct ReadmeFrameTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The text rows of a golden file (its first line is the size, then one `|row|` a line).
    static func goldenRows(_ name: String) throws -> [String] {
        let text = try String(
            contentsOf: root.appending(path: "Tests/DashboardTests/Golden/\(name).txt"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let size = try #require(lines.first?.split(separator: "x").compactMap { Int($0) })
        try #require(size.count == 2, "\(name).txt does not start with its size")
        return lines.dropFirst().prefix(size[1]).map { String($0.dropFirst().dropLast()) }
    }

    /// The lines of the README's first ```text block.
    static func readmeBlock() throws -> [String] {
        let text = try String(contentsOf: root.appending(path: "README.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "```text"), "the README has no ```text block")
        let end = try #require(lines[(start + 1)...].firstIndex(of: "```"), "the README's ```text block is not closed")
        return Array(lines[(start + 1)..<end])
    }

    @Test func theReadmeShowsTheRunningGoldenFrame() throws {
        let golden = try Self.goldenRows("running-80x24")
        let readme = try Self.readmeBlock()
        try #require(golden.count == 24)
        #expect(readme.count == golden.count, "the README's frame has \(readme.count) lines, the golden frame 24")
        for (row, (shown, drawn)) in zip(readme, golden).enumerated() where shown != drawn {
            Issue.record("README frame row \(row + 1):\n  README: \(shown)\n  golden: \(drawn)")
        }
    }
}
