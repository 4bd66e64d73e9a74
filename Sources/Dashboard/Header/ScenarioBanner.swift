import UICore

/// A running scenario as the banner shows it: the executable makes it from the runner's
/// progress, so the dashboard knows nothing of how scenarios run.
public struct ScenarioBanner: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        case running
        /// An `until:` step: waiting for this event.
        case waiting(String)
        case paused
        /// Step mode: waiting for Space.
        case awaitingStep
        /// Every step done; the ending says what was shown.
        case finished(ending: String)
    }

    public var name: String
    public var step: Int
    public var count: Int
    public var caption: String?
    public var phase: Phase
    /// `--step`: Space runs the next step.
    public var stepMode: Bool
    /// A step that gave up waiting, say.
    public var note: String?

    public init(
        name: String, step: Int, count: Int, caption: String?, phase: Phase, stepMode: Bool, note: String? = nil
    ) {
        self.name = name
        self.step = step
        self.count = count
        self.caption = caption
        self.phase = phase
        self.stepMode = stepMode
        self.note = note
    }

    public var isFinished: Bool { if case .finished = phase { true } else { false } }

    /// The banner's lines at `width`: one while running; when finished, the ending wrapped on up
    /// to three, since saying what was shown is the point of the demo.
    public func lines(width: Int) -> [String] {
        let room = max(10, width - 2)
        switch phase {
        case .finished(let ending):
            // Continued lines are indented under the first.
            let text = "✔ \(name) done: \(ending)" + (note.map { " (\($0))" } ?? "")
            return Format.wrap(text, width: room, rest: room - 2, maxLines: 3).enumerated().map {
                $0 == 0 ? $1 : "  " + $1
            }
        default:
            // The caption before the wait: it is what the audience reads; a cut falls on the wait.
            var parts = ["▶ \(name)", "step \(step)/\(count)"]
            if phase == .paused { parts.append("‖ paused (P resumes)") }
            if phase == .awaitingStep { parts.append("Space: next step") }
            if let caption { parts.append(caption) }
            if case .waiting(let event) = phase { parts.append("waiting for \(event)") }
            if let note { parts.append("(\(note))") }
            return [parts.joined(separator: " │ ")]
        }
    }
}

/// A scenario the S menu lists.
public struct ScenarioEntry: Equatable, Sendable {
    public var name: String
    public var description: String
    public init(name: String, description: String) {
        self.name = name
        self.description = description
    }
}

/// What the S menu and the keys do to the running scenario.
public enum ScenarioControl: Equatable, Sendable {
    /// Step mode: the next step; otherwise skip the wait for the next one.
    case advance
    case togglePause
    case restart
    /// Stops it (or, finished, takes the banner away).
    case stop
}

/// One row of the S menu.
public enum ScenarioMenuRow: Equatable, Sendable {
    case control(ScenarioControl)
    case start(ScenarioEntry)
}

extension DashboardState {
    /// Lines the banner takes at `width`; the layout and the drawing share it.
    func scenarioBannerLines(width: Int) -> [String] { session.scenario?.lines(width: width) ?? [] }

    /// The S menu: the running scenario's controls first, then every scenario to start.
    public var scenarioMenuRows: [ScenarioMenuRow] {
        var rows: [ScenarioMenuRow] = []
        if let scenario = session.scenario {
            rows +=
                scenario.isFinished
                ? [.control(.restart), .control(.stop)] : [.control(.togglePause), .control(.restart), .control(.stop)]
        }
        return rows + session.scenarios.map(ScenarioMenuRow.start)
    }
}
