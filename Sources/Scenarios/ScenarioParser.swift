import BoundedYAML
import Faults
import Foundation
import ProviderVocabulary
import Settings
import Yams

/// Reads the scenario format (docs/demo.md, "Scenarios"):
///
///     name: backend-outage
///     description: one line for the S list
///     ending: what the audience has seen
///     steps:
///       - at: 0s                      # or after: 5s (after the previous step), or neither (after: 0s)
///         caption: the backend fails
///         fault: http500              # with on: consumer|driver|both, delay: 2s for latency
///       - until: backing_off consumer # with timeout: 60s
///
/// Every mistake is reported with the line it is on: an unknown key, two actions in one step, a
/// bad duration, an unknown fault, an `at:` earlier than the step before.
public enum ScenarioParser {
    static let topKeys = ["name", "description", "ending", "steps"]
    static let actionKeys = [
        "switch", "fault", "clear", "refresh", "server-clock", "device-clock", "lifetime", "sdks", "until",
    ]
    static let timingKeys = ["at", "after"]
    /// Keys that qualify an action, and the actions they belong to.
    static let modifierKeys: [String: [String]] = [
        "on": ["fault", "clear", "refresh"], "delay": ["fault"], "timeout": ["until"],
    ]
    static let defaultUntilTimeout: TimeInterval = 60
    /// `lifetime:` takes what `--lifetime` takes.
    static let lifetimeRange = Double(Setting.lifetimes.lowerBound)...Double(Setting.lifetimes.upperBound)

    public static func parse(_ yaml: String, file: String) throws(FileProblem) -> Scenario {
        func fail(_ line: Int?, _ message: String) -> FileProblem { FileProblem(file: file, line: line, message) }
        let root: Node?
        do { root = try BoundedYAML.compose(yaml) } catch { throw fail(error.line, error.reason) }
        guard let root, let mapping = root.mapping else {
            throw fail(root?.mark?.line ?? 1, "a scenario is a mapping with name:, description:, ending: and steps:")
        }
        var fields: [String: Node] = [:]
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            guard topKeys.contains(key) else {
                throw fail(
                    keyNode.mark?.line, "unknown key \"\(key)\"; a scenario has \(topKeys.joined(separator: ", "))")
            }
            fields[key] = value
        }
        func text(_ key: String, required: Bool = true) throws(FileProblem) -> String {
            guard let node = fields[key] else {
                if required { throw fail(root.mark?.line, "missing \(key):") }
                return ""
            }
            guard let value = node.scalar?.string, !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw fail(node.mark?.line, "\(key): must be a non-empty text")
            }
            return value.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let name = try text("name")
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw fail(fields["name"]?.mark?.line, "name: \"\(name)\" may only hold letters, digits, - and _")
        }
        let description = try text("description", required: false)
        let ending = try text("ending")
        guard let stepsNode = fields["steps"] else { throw fail(root.mark?.line, "missing steps:") }
        guard let sequence = stepsNode.sequence, sequence.count > 0 else {
            throw fail(stepsNode.mark?.line, "steps: must be a list of at least one step (- at: 0s ...)")
        }
        var steps: [ScenarioStep] = []
        // The time each step is due at if every until: returned at once: at: may not go before it.
        var nominal: TimeInterval = 0
        for node in sequence {
            let step = try parseStep(node, file: file)
            switch step.timing {
            case .at(let at):
                guard at >= nominal else {
                    throw fail(
                        step.line,
                        "at: \(ScenarioDuration.format(at)) is before the step above (due at \(ScenarioDuration.format(nominal))): times may not go backwards"
                    )
                }
                nominal = at
            case .after(let after):
                nominal += after
            }
            steps.append(step)
        }
        return Scenario(name: name, description: description, ending: ending, steps: steps, source: file)
    }

    static func parseStep(_ node: Node, file: String) throws(FileProblem) -> ScenarioStep {
        let fields = try StepFields(node, file: file)
        // Time first, then the action: the order the mistakes are reported in.
        let timing = try fields.timing()
        let (action, caption) = try fields.action()
        return ScenarioStep(timing: timing, action: action, caption: caption, line: fields.line)
    }

    /// A side by its role or by the on-demand kinds' nouns.
    static func side(_ word: String) -> ScenarioSide? {
        switch word.lowercased() {
        case "consumer", "trip", "tracking": .consumer
        case "driver", "vehicle", "delivery": .driver
        default: nil
        }
    }

    static func scope(_ entry: (value: Node, line: Int)?, file: String) throws(FileProblem) -> RoleScope {
        guard let entry else { return .both }
        let word = entry.value.scalar?.string ?? ""
        if word == "both" { return .both }
        guard let side = side(word) else {
            throw FileProblem(file: file, line: entry.line, "\"\(word)\" is not a side; use consumer, driver or both")
        }
        return RoleScope(side)
    }

    /// Fleet Engine's own ID rule, as the server, the ID prompt and the flags apply it.
    static func idProblem(_ id: String) -> String? {
        FleetEngineID.problem(id).map { "\"\(id)\" is not a Fleet Engine ID: \($0)" }
    }
}
