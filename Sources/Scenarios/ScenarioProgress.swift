import Foundation

/// Where a running scenario is: what the banner shows.
public struct ScenarioProgress: Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        /// Waiting for the next step's time, or doing a step.
        case running
        /// In an `until:` step, waiting for this event.
        case waiting(for: String)
        case paused
        /// Step mode: the next step runs when told (Space).
        case awaitingStep
        /// Every step done: the ending text.
        case finished(String)
        case stopped
    }

    public var name: String
    /// The step shown, from 1; 0 before the first has run.
    public var step: Int
    public var count: Int
    public var caption: String?
    public var status: Status
    public var stepMode: Bool
    /// Something worth a word that is not the caption: an `until:` that timed out.
    public var note: String?

    public var isFinished: Bool { if case .finished = status { true } else { false } }
}
