import Foundation
import ProviderVocabulary
import Settings
import Testing

/// The "Limits" table of docs/limits.md says what the settings table enforces: a range changed in one and
/// not the other fails here, with the setting and both texts.
@Suite("docs/limits.md matches the settings table", .timeLimit(.minutes(15)))
struct ReadmeLimitsTests {
    struct Row {
        var input: String
        var bound: String
    }

    /// The rows of the table on the page titled `# Limits`, header and rule left out.
    static func rows() throws -> [Row] {
        let readme = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "docs/limits.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "# Limits") else { return [] }
        let section = lines[(start + 1)...].prefix { !$0.hasPrefix("## ") }
        return section.filter { $0.hasPrefix("|") }.dropFirst(2).compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            return cells.count == 2 ? Row(input: cells[0], bound: cells[1]) : nil
        }
    }

    static let numbers = Setting.allCases.filter { $0.limit != nil }

    @Test(arguments: numbers)
    func eachNumberHasOneRowWithItsRange(_ setting: Setting) throws {
        let rows = try Self.rows().filter { $0.input.contains("\(setting.flag)`") }
        try #require(rows.count == 1, "\(setting.flag) is in \(rows.count) rows of docs/limits.md's table, not one")
        #expect(
            rows[0].bound == setting.limit,
            "docs/limits.md says \(setting.flag) is \(rows[0].bound); the table says \(setting.limit ?? "")")
        if setting.entry.file != .none {
            #expect(
                rows[0].input.contains("`\(setting.rawValue):`"),
                "the row of \(setting.flag) does not name config `\(setting.rawValue):`")
        }
    }

    @Test func aRecordingListsAtMostAFleet() throws {
        let header = try Self.rows().filter { $0.input.hasPrefix("a recording's header") }
        try #require(header.count == 1)
        let most = SettingText.grouped(Setting.fleetSizes.upperBound)
        #expect(header[0].bound.contains("at most \(most) members a kind"), "docs/limits.md: \(header[0].bound)")
    }

    @Test func otherDurationsEndWhereTheFlagsDo() throws {
        let others = try Self.rows().filter { $0.input.hasPrefix("other durations") }
        try #require(others.count == 1)
        #expect(
            others[0].bound.hasPrefix("at most \(InputBounds.describe(InputBounds.longestDuration))"),
            "docs/limits.md: \(others[0].bound)")
    }

    /// An edit that breaks the table's shape would otherwise pass as "no rows, nothing to compare".
    @Test func theTableIsRead() throws {
        #expect(try Self.rows().count >= Self.numbers.count)
    }
}
