import ArgumentParser
import Foundation
import Scenarios

/// `tokendash scenario check FILE...`, `list`, `show NAME`: scenario files checked, and the
/// built-ins listed or printed to start a file from.
struct ScenarioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Check scenario files; list or print the built-in scenarios.",
        subcommands: [Check.self, List.self, Show.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check scenario files: file:line and the reason for each mistake; exit 2 if any.")

        @Argument(help: "Scenario files (YAML).")
        var files: [String]

        func run() async throws {
            var failed = false
            for file in files {
                do {
                    let scenario = try ScenarioCatalog.load(file)
                    let server = scenario.needsEmbeddedServer.isEmpty ? "" : " (needs the embedded server)"
                    print("\(file): ok, scenario \(scenario.name), \(scenario.steps.count) steps\(server)")
                } catch {
                    DashboardCommand.fail("\(error)")
                    failed = true
                }
            }
            if failed { throw ExitCode(2) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the built-in scenarios.")
        func run() async throws {
            let width = ScenarioCatalog.builtins.map(\.name.count).max() ?? 0
            for scenario in ScenarioCatalog.builtins {
                print(scenario.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + scenario.description)
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a built-in scenario's YAML, to start a file of your own from.")
        @Argument(help: "A built-in scenario's name.")
        var name: String
        func run() async throws {
            guard let source = BuiltinScenarios.sources.first(where: { $0.name == name }) else {
                DashboardCommand.fail(
                    "no built-in scenario \(name); built-in: \(BuiltinScenarios.sources.map(\.name).joined(separator: ", "))"
                )
                throw ExitCode(2)
            }
            print(source.yaml)
        }
    }
}
