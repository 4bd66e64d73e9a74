import Foundation
import Testing

/// `Tests/unit-targets.txt` is the one list of unit targets (`scripts/test-kinds.sh` runs them with
/// no network): each name is a test target of `Package.swift`, and TESTING.md's "Unit" paragraph
/// names the same targets, so a target moved between kinds is moved in one place and checked here.
@Suite("The unit targets' list matches Package.swift and TESTING.md", .timeLimit(.minutes(15)))
struct UnitTargetsTests {
    static let root = ReadmeArchitectureTests.root

    static func listed() throws -> [String] {
        let text = try String(contentsOf: root.appending(path: "Tests/unit-targets.txt"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    static func testTargets() throws -> Set<String> {
        let text = try String(contentsOf: root.appending(path: "Package.swift"), encoding: .utf8)
        return Set(text.matches(of: /\.testTarget\(\s*name:\s*"([^"]+)"/).map { String($0.output.1) })
    }

    /// The names in backticks of the list item that starts with "- **Unit**" (up to the next item).
    static func testingUnitParagraph() throws -> Set<String> {
        let text = try String(contentsOf: root.appending(path: "TESTING.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("- **Unit**") }) else { return [] }
        let rest = lines[(start + 1)...].prefix { !$0.isEmpty && !$0.hasPrefix("- ") }
        let paragraph = ([lines[start]] + rest).joined(separator: " ")
        return Set(paragraph.matches(of: /`(\w+Tests)`/).map { String($0.output.1) })
    }

    @Test func everyListedTargetIsATestTargetOfThePackage() throws {
        let listed = try Self.listed()
        let targets = try Self.testTargets()
        try #require(listed.count > 5 && targets.count > 10, "lists not read: \(listed), \(targets)")
        #expect(Set(listed).subtracting(targets).sorted() == [], "listed unit targets with no test target")
        #expect(listed.count == Set(listed).count, "a unit target listed twice")
    }

    @Test func testingNamesTheListedTargetsAsUnit() throws {
        let listed = Set(try Self.listed())
        let testing = try Self.testingUnitParagraph()
        #expect(listed.subtracting(testing).sorted() == [], "unit targets TESTING.md does not name as unit")
        #expect(testing.subtracting(listed).sorted() == [], "targets TESTING.md names as unit, not in the list")
    }
}
