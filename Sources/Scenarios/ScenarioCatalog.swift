import BoundedYAML
import Foundation

/// The scenarios a run can choose from: the built-ins, and files named on the command line.
public struct ScenarioCatalog: Sendable {
    public private(set) var scenarios: [Scenario]

    /// The built-ins; a broken one is a bug, caught by the tests.
    public static let builtins: [Scenario] = BuiltinScenarios.sources.compactMap {
        try? ScenarioParser.parse($0.yaml, file: "built-in \($0.name)")
    }

    public init(scenarios: [Scenario] = ScenarioCatalog.builtins) { self.scenarios = scenarios }

    public var names: [String] { scenarios.map(\.name) }

    public func scenario(named name: String) -> Scenario? { scenarios.first { $0.name == name } }

    /// A built-in by name, else a file by path; throws `FileProblem` for a bad file or an unknown name.
    public static func load(_ nameOrFile: String) throws(FileProblem) -> Scenario {
        if let builtin = builtins.first(where: { $0.name == nameOrFile }) { return builtin }
        guard
            nameOrFile.contains("/") || nameOrFile.hasSuffix(".yaml") || nameOrFile.hasSuffix(".yml")
                || FileManager.default.fileExists(atPath: nameOrFile)
        else {
            throw FileProblem(
                file: nameOrFile, line: nil,
                "no such scenario; built-in: \(builtins.map(\.name).joined(separator: ", ")), or give a file")
        }
        let text: String
        // Not String(contentsOfFile:): random bytes are "not UTF-8 text" at their line, not
        // Foundation's "isn't in the correct format", and /dev/zero ends.
        do { text = try BoundedYAML.read(nameOrFile) } catch {
            throw FileProblem(file: nameOrFile, error, lead: "the file is ")
        }
        return try ScenarioParser.parse(text, file: nameOrFile)
    }

    /// Adds `scenario`, replacing a built-in of the same name.
    public mutating func add(_ scenario: Scenario) {
        scenarios.removeAll { $0.name == scenario.name }
        scenarios.append(scenario)
    }
}
