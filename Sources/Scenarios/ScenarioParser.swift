import BoundedYAML
import Faults
import FleetAuth
import Foundation
import Yams

/// Reads the scenario format (README, "Giving a demo"):
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
    static let actionKeys = ["switch", "fault", "clear", "refresh", "server-clock", "lifetime", "sdks", "until"]
    static let timingKeys = ["at", "after"]
    /// Keys that qualify an action, and the actions they belong to.
    static let modifierKeys: [String: [String]] = ["on": ["fault", "clear", "refresh"], "delay": ["fault"], "timeout": ["until"]]
    static let defaultUntilTimeout: TimeInterval = 60
    /// Fleet Engine accepts tokens of at most an hour.
    static let lifetimeRange = InputBounds.lifetime

    public static func parse(_ yaml: String, file: String) throws(ScenarioError) -> Scenario {
        func fail(_ line: Int?, _ message: String) -> ScenarioError { ScenarioError(file: file, line: line, message: message) }
        let root: Node?
        do { root = try BoundedYAML.compose(yaml) } catch { throw fail(error.line, error.reason) }
        guard let root, let mapping = root.mapping else {
            throw fail(root?.mark?.line ?? 1, "a scenario is a mapping with name:, description:, ending: and steps:")
        }
        var fields: [String: Node] = [:]
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            guard topKeys.contains(key) else {
                throw fail(keyNode.mark?.line, "unknown key \"\(key)\"; a scenario has \(topKeys.joined(separator: ", "))")
            }
            fields[key] = value
        }
        func text(_ key: String, required: Bool = true) throws(ScenarioError) -> String {
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
                    throw fail(step.line, "at: \(ScenarioDuration.format(at)) is before the step above (due at \(ScenarioDuration.format(nominal))): times may not go backwards")
                }
                nominal = at
            case .after(let after):
                nominal += after
            }
            steps.append(step)
        }
        return Scenario(name: name, description: description, ending: ending, steps: steps, source: file)
    }

    static func parseStep(_ node: Node, file: String) throws(ScenarioError) -> ScenarioStep {
        func fail(_ line: Int?, _ message: String) -> ScenarioError { ScenarioError(file: file, line: line, message: message) }
        let line = node.mark?.line ?? 0
        guard let mapping = node.mapping else {
            throw fail(line, "a step is a mapping, e.g. \"- after: 5s\" with \"fault: http500\" under it")
        }
        var values: [String: (value: Node, line: Int)] = [:]
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let keyLine = keyNode.mark?.line ?? line
            guard key == "caption" || actionKeys.contains(key) || timingKeys.contains(key) || modifierKeys[key] != nil else {
                throw fail(keyLine, "unknown key \"\(key)\" in a step; use at/after, caption, one of \(actionKeys.joined(separator: ", ")), and on/delay/timeout")
            }
            values[key] = (value, keyLine)
        }
        func string(_ key: String) throws(ScenarioError) -> String? {
            guard let entry = values[key] else { return nil }
            guard let text = entry.value.scalar?.string else { throw fail(entry.line, "\(key): must be a single value") }
            return text.trimmingCharacters(in: .whitespaces)
        }
        func duration(_ key: String, signed: Bool = false) throws(ScenarioError) -> TimeInterval? {
            guard let text = try string(key) else { return nil }
            guard let seconds = ScenarioDuration.parse(text, signed: signed) else {
                throw fail(values[key]?.line, "\(key): \"\(text)\" is not a duration (e.g. 5s, 500ms, 2m, 1m30s\(signed ? ", +15m, -20m" : ""))")
            }
            // Checked here, so the runner, the server and every message can do sums on it.
            if key == "lifetime" {
                guard lifetimeRange.contains(seconds) else {
                    throw fail(values[key]?.line, "lifetime: \"\(text)\" is outside 1s...1h (Fleet Engine accepts tokens of at most an hour)")
                }
            } else if key == "server-clock" {
                guard InputBounds.within(seconds, InputBounds.serverClockOffset) else {
                    throw fail(values[key]?.line, "server-clock: \"\(text)\" is outside -1d...+1d (a server clock off by more is no demo of skew)")
                }
            } else {
                guard InputBounds.within(seconds, InputBounds.longestDuration) else {
                    throw fail(values[key]?.line, "\(key): \"\(text)\" is longer than \(InputBounds.describe(InputBounds.longestDuration))")
                }
            }
            return seconds
        }

        // Time.
        if values["at"] != nil && values["after"] != nil {
            throw fail(values["after"]?.line, "a step has at: or after:, not both")
        }
        let timing: ScenarioTiming
        if let at = try duration("at") {
            timing = .at(at)
        } else if try string("after") == "previous" {
            timing = .after(0)
        } else {
            timing = .after(try duration("after") ?? 0)
        }

        // Exactly one action, or none with a caption.
        let present = actionKeys.filter { values[$0] != nil }
        if present.count > 1 {
            throw fail(values[present[1]]?.line, "two actions in one step (\(present.joined(separator: " and "))); give each its own step")
        }
        let actionKey = present.first
        for (modifier, owners) in modifierKeys where values[modifier] != nil {
            guard let actionKey, owners.contains(actionKey) else {
                throw fail(values[modifier]?.line, "\(modifier): belongs to a \(owners.map { $0 + ":" }.joined(separator: " or ")) step")
            }
        }
        let caption = try string("caption")
        let actionLine = actionKey.flatMap { values[$0]?.line } ?? line
        let action: ScenarioAction
        switch actionKey {
        case nil:
            guard caption != nil else { throw fail(line, "a step needs an action (\(actionKeys.joined(separator: ", "))) or a caption") }
            action = .say
        case "switch":
            let words = (try string("switch") ?? "").split(separator: " ").map(String.init)
            guard (1...2).contains(words.count), let side = side(words[0]) else {
                throw fail(actionLine, "switch: takes a side and an optional ID: consumer|driver (or trip|vehicle) [ID]")
            }
            if words.count == 2, let problem = idProblem(words[1]) { throw fail(actionLine, "switch: \(problem)") }
            action = .switchID(side, id: words.count == 2 ? words[1] : nil)
        case "fault":
            let name = try string("fault") ?? ""
            guard let fault = Fault(name: name) else {
                throw fail(actionLine, "unknown fault \"\(name)\"; use one of \(Fault.names.joined(separator: ", "))")
            }
            let delay = try duration("delay")
            if delay != nil && fault != .latency { throw fail(values["delay"]?.line, "delay: only goes with fault: latency") }
            action = .setFault(fault, try scope(values["on"], file: file), latencyMilliseconds: delay.map { Int(($0 * 1000).rounded()) })
        case "clear":
            guard try string("clear") == "faults" else { throw fail(actionLine, "clear: takes one value, faults (with on: to clear one side)") }
            action = .clearFaults(try scope(values["on"], file: file))
        case "refresh":
            action = .refresh(try scope(values["refresh"], file: file))
        case "server-clock":
            action = .serverClock(offset: try duration("server-clock", signed: true) ?? 0)
        case "lifetime":
            action = .tokenLifetime(try duration("lifetime") ?? 0)
        case "sdks":
            switch try string("sdks") {
            case "pause": action = .setPaused(true)
            case "resume": action = .setPaused(false)
            default: throw fail(actionLine, "sdks: takes pause or resume")
            }
        default: // "until"
            let words = (try string("until") ?? "").split(separator: " ").map(String.init)
            let event = words.first.map { $0.replacingOccurrences(of: "-", with: "_") } ?? ""
            guard (1...2).contains(words.count), let trigger = ScenarioCondition.Trigger(name: event) else {
                throw fail(actionLine, "until: takes an event and an optional side, e.g. \"fetched driver\"; events: \(ScenarioCondition.names.joined(separator: ", "))")
            }
            var which: ScenarioSide?
            if words.count == 2 {
                guard let s = side(words[1]) else { throw fail(actionLine, "until: \"\(words[1])\" is not a side (consumer, driver, trip, vehicle)") }
                which = s
            }
            let timeout = try duration("timeout") ?? defaultUntilTimeout
            guard timeout > 0 else { throw fail(values["timeout"]?.line, "timeout: must be longer than 0s") }
            action = .until(ScenarioCondition(trigger, side: which), timeout: timeout)
        }
        return ScenarioStep(timing: timing, action: action, caption: caption, line: line)
    }

    /// A side by its role or by the on-demand kinds' nouns.
    static func side(_ word: String) -> ScenarioSide? {
        switch word.lowercased() {
        case "consumer", "trip", "tracking": .consumer
        case "driver", "vehicle", "delivery": .driver
        default: nil
        }
    }

    static func scope(_ entry: (value: Node, line: Int)?, file: String) throws(ScenarioError) -> RoleScope {
        guard let entry else { return .both }
        let word = entry.value.scalar?.string ?? ""
        if word == "both" { return .both }
        guard let side = side(word) else {
            throw ScenarioError(file: file, line: entry.line, message: "\"\(word)\" is not a side; use consumer, driver or both")
        }
        return RoleScope(side)
    }

    /// Fleet Engine's own ID rule, as the server, the ID prompt and the flags apply it.
    static func idProblem(_ id: String) -> String? {
        FleetEngineID.problem(id).map { "\"\(id)\" is not a Fleet Engine ID: \($0)" }
    }
}
