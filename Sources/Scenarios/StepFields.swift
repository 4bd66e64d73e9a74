import BoundedYAML
import Faults
import Foundation
import ProviderVocabulary
import Yams

/// One step of a scenario file as its keys, each with its line: read once, checked against the
/// keys a step may have, then turned into a timing and an action. Every mistake is one
/// `file:line: reason`.
struct StepFields {
    typealias Parser = ScenarioParser
    let file: String
    /// The step's own line (its `-`).
    let line: Int
    private var values: [String: (value: Node, line: Int)] = [:]

    init(_ node: Node, file: String) throws(FileProblem) {
        self.file = file
        line = node.mark?.line ?? 0
        guard let mapping = node.mapping else {
            throw FileProblem(
                file: file, line: line, "a step is a mapping, e.g. \"- after: 5s\" with \"fault: http500\" under it")
        }
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let keyLine = keyNode.mark?.line ?? line
            guard
                key == "caption" || Parser.actionKeys.contains(key) || Parser.timingKeys.contains(key)
                    || Parser.modifierKeys[key] != nil
            else {
                throw FileProblem(
                    file: file, line: keyLine,
                    "unknown key \"\(key)\" in a step; use at/after, caption, one of \(Parser.actionKeys.joined(separator: ", ")), and on/delay/timeout"
                )
            }
            values[key] = (value, keyLine)
        }
    }

    func fail(_ line: Int?, _ message: String) -> FileProblem { FileProblem(file: file, line: line, message) }

    func string(_ key: String) throws(FileProblem) -> String? {
        guard let entry = values[key] else { return nil }
        guard let text = entry.value.scalar?.string else { throw fail(entry.line, "\(key): must be a single value") }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// A duration, checked against its key's range here, so the runner, the server and every
    /// message can do sums on it.
    func duration(_ key: String, signed: Bool = false) throws(FileProblem) -> TimeInterval? {
        guard let text = try string(key) else { return nil }
        guard let seconds = ScenarioDuration.parse(text, signed: signed) else {
            throw fail(
                values[key]?.line,
                "\(key): \"\(text)\" is not a duration (e.g. 5s, 500ms, 2m, 1m30s\(signed ? ", +15m, -20m" : ""))")
        }
        switch key {
        case "lifetime":
            guard Parser.lifetimeRange.contains(seconds) else {
                let range =
                    "\(ScenarioDuration.format(Parser.lifetimeRange.lowerBound))...\(ScenarioDuration.format(Parser.lifetimeRange.upperBound))"
                throw fail(
                    values[key]?.line,
                    "lifetime: \"\(text)\" is outside \(range) (Fleet Engine accepts tokens of at most an hour)")
            }
        case "server-clock", "device-clock":
            guard InputBounds.within(seconds, InputBounds.serverClockOffset) else {
                let whose = key == "server-clock" ? "a server clock" : "a phone's clock"
                throw fail(
                    values[key]?.line,
                    "\(key): \"\(text)\" is outside -1d...+1d (\(whose) off by more is no demo of skew)")
            }
        default:
            guard InputBounds.within(seconds, InputBounds.longestDuration) else {
                throw fail(
                    values[key]?.line,
                    "\(key): \"\(text)\" is longer than \(InputBounds.describe(InputBounds.longestDuration))")
            }
        }
        return seconds
    }

    /// `at:` or `after:` (a duration, or `previous`); none is right after the step before.
    func timing() throws(FileProblem) -> ScenarioTiming {
        if values["at"] != nil && values["after"] != nil {
            throw fail(values["after"]?.line, "a step has at: or after:, not both")
        }
        if let at = try duration("at") { return .at(at) }
        if try string("after") == "previous" { return .after(0) }
        return .after(try duration("after") ?? 0)
    }

    /// Exactly one action, or none with a caption; modifiers only with the action they belong to.
    func action() throws(FileProblem) -> (ScenarioAction, caption: String?) {
        let present = Parser.actionKeys.filter { values[$0] != nil }
        if present.count > 1 {
            throw fail(
                values[present[1]]?.line,
                "two actions in one step (\(present.joined(separator: " and "))); give each its own step")
        }
        let actionKey = present.first
        for (modifier, owners) in Parser.modifierKeys where values[modifier] != nil {
            guard let actionKey, owners.contains(actionKey) else {
                throw fail(
                    values[modifier]?.line,
                    "\(modifier): belongs to a \(owners.map { $0 + ":" }.joined(separator: " or ")) step")
            }
        }
        let caption = try string("caption")
        guard let actionKey else {
            guard caption != nil else {
                throw fail(line, "a step needs an action (\(Parser.actionKeys.joined(separator: ", "))) or a caption")
            }
            return (.say, caption)
        }
        return (try action(actionKey, line: values[actionKey]?.line ?? line), caption)
    }

    private func action(_ key: String, line actionLine: Int) throws(FileProblem) -> ScenarioAction {
        switch key {
        case "switch":
            let words = (try string("switch") ?? "").split(separator: " ").map(String.init)
            guard (1...2).contains(words.count), let side = Parser.side(words[0]) else {
                throw fail(
                    actionLine, "switch: takes a side and an optional ID: consumer|driver (or trip|vehicle) [ID]")
            }
            if words.count == 2, let problem = Parser.idProblem(words[1]) {
                throw fail(actionLine, "switch: \(problem)")
            }
            return .switchID(side, id: words.count == 2 ? words[1] : nil)
        case "fault":
            let name = try string("fault") ?? ""
            guard let fault = Fault(name: name) else {
                throw fail(actionLine, "unknown fault \"\(name)\"; use one of \(Fault.names.joined(separator: ", "))")
            }
            let delay = try duration("delay")
            if delay != nil && fault != .latency {
                throw fail(values["delay"]?.line, "delay: only goes with fault: latency")
            }
            return .setFault(
                fault, try Parser.scope(values["on"], file: file),
                latencyMilliseconds: delay.map { Int(($0 * 1000).rounded()) })
        case "clear":
            guard try string("clear") == "faults" else {
                throw fail(actionLine, "clear: takes one value, faults (with on: to clear one side)")
            }
            return .clearFaults(try Parser.scope(values["on"], file: file))
        case "refresh":
            return .refresh(try Parser.scope(values["refresh"], file: file))
        case "server-clock":
            return .serverClock(offset: try duration("server-clock", signed: true) ?? 0)
        case "device-clock":
            return .deviceClock(offset: try duration("device-clock", signed: true) ?? 0)
        case "lifetime":
            return .tokenLifetime(try duration("lifetime") ?? 0)
        case "sdks":
            switch try string("sdks") {
            case "pause": return .setPaused(true)
            case "resume": return .setPaused(false)
            default: throw fail(actionLine, "sdks: takes pause or resume")
            }
        default:  // "until", the last of `actionKeys`
            return try until(line: actionLine)
        }
    }

    /// `until: EVENT [SIDE]` with an optional `timeout:`.
    private func until(line actionLine: Int) throws(FileProblem) -> ScenarioAction {
        let words = (try string("until") ?? "").split(separator: " ").map(String.init)
        let event = words.first.map { $0.replacingOccurrences(of: "-", with: "_") } ?? ""
        guard (1...2).contains(words.count), let trigger = ScenarioCondition.Trigger(name: event) else {
            throw fail(
                actionLine,
                "until: takes an event and an optional side, e.g. \"fetched driver\"; events: \(ScenarioCondition.names.joined(separator: ", "))"
            )
        }
        var which: ScenarioSide?
        if words.count == 2 {
            guard let s = Parser.side(words[1]) else {
                throw fail(actionLine, "until: \"\(words[1])\" is not a side (consumer, driver, trip, vehicle)")
            }
            which = s
        }
        let timeout = try duration("timeout") ?? Parser.defaultUntilTimeout
        guard timeout > 0 else { throw fail(values["timeout"]?.line, "timeout: must be longer than 0s") }
        return .until(ScenarioCondition(trigger, side: which), timeout: timeout)
    }
}
