import Foundation
import Testing

/// ARCHITECTURE.md's module table names every module of `Package.swift` and no other: a module
/// added, renamed or removed without its row fails here, with the names on each side.
@Suite("ARCHITECTURE.md matches Package.swift", .timeLimit(.minutes(15)))
struct ReadmeArchitectureTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The first column of the table under `## Data flow and modules`.
    static func readmeModules() throws -> Set<String> {
        let text = try String(contentsOf: root.appending(path: "ARCHITECTURE.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "## Data flow and modules") else { return [] }
        let section = lines[(start + 1)...].prefix { !$0.hasPrefix("## ") }
        return Set(
            section.compactMap { line -> String? in
                guard line.hasPrefix("| `") else { return nil }
                return line.dropFirst(3).split(separator: "`").first.map(String.init)
            })
    }

    /// Every target's name in the manifest, test targets aside.
    static func packageModules() throws -> Set<String> {
        let text = try String(contentsOf: root.appending(path: "Package.swift"), encoding: .utf8)
        let pattern = /\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)"/
        return Set(text.matches(of: pattern).map { String($0.output.1) })
    }

    @Test func everyModuleHasItsRowAndEveryRowItsModule() throws {
        let readme = try Self.readmeModules()
        let package = try Self.packageModules()
        try #require(package.count > 20, "the manifest's targets were not read: \(package)")
        #expect(package.subtracting(readme).sorted() == [], "modules with no row in ARCHITECTURE.md's module table")
        #expect(readme.subtracting(package).sorted() == [], "rows of ARCHITECTURE.md's module table with no module")
    }
}
