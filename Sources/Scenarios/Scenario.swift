import Faults
import Foundation
import ProviderVocabulary

/// A scripted demo: timed steps that drive the providers and the embedded server, each with an
/// optional caption, and an ending that says what was shown.
public struct Scenario: Sendable, Equatable {
    public var name: String
    public var description: String
    /// Shown when the last step is done: what the audience has just seen.
    public var ending: String
    public var steps: [ScenarioStep]
    /// Where it came from: "built-in" or the file's path; error messages name it.
    public var source: String

    public init(name: String, description: String, ending: String, steps: [ScenarioStep], source: String) {
        self.name = name
        self.description = description
        self.ending = ending
        self.steps = steps
        self.source = source
    }

    /// The steps that need the embedded server (faults, its clock, token lifetime): refused with
    /// a user's own backend.
    public var needsEmbeddedServer: [ScenarioStep] { steps.filter(\.action.needsEmbeddedServer) }

    /// Why this scenario cannot run, or nil: its server steps need the embedded server.
    public func problem(embeddedServer: Bool) -> String? {
        guard !embeddedServer, let step = needsEmbeddedServer.first else { return nil }
        return
            "\(source):\(step.line): scenario \(name) changes the embedded token server (faults, its clock, token lifetime), and this run uses --consumer-url/--driver-url"
    }
}

/// One step: when it runs, what it does, what the banner says meanwhile.
public struct ScenarioStep: Sendable, Equatable {
    public var timing: ScenarioTiming
    public var action: ScenarioAction
    public var caption: String?
    /// The line of the step in its file, for messages about it.
    public var line: Int

    public init(timing: ScenarioTiming, action: ScenarioAction, caption: String? = nil, line: Int = 0) {
        self.timing = timing
        self.action = action
        self.caption = caption
        self.line = line
    }
}

/// When a step runs.
public enum ScenarioTiming: Sendable, Equatable {
    /// Seconds after the scenario started (at once if an earlier `until:` took longer).
    case at(TimeInterval)
    /// Seconds after the previous step finished.
    case after(TimeInterval)
}

/// A side of the dashboard: the consumer (trip, tracking) or the driver (vehicle, delivery vehicle).
public typealias ScenarioSide = ProviderKind.Role

/// What a step does: exactly one of these.
public enum ScenarioAction: Sendable, Equatable {
    /// Only shows the step's caption.
    case say
    /// Switches a side to `id`, or to the next ID in its sequence when nil.
    case switchID(ScenarioSide, id: String?)
    /// `latencyMilliseconds` is the delay of the latency fault (nil: the menu's default).
    case setFault(Fault, RoleScope, latencyMilliseconds: Int?)
    case clearFaults(RoleScope)
    case refresh(RoleScope)
    /// The embedded server's clock runs this many seconds ahead (negative: behind).
    case serverClock(offset: TimeInterval)
    /// The simulated phones' clock runs this many seconds ahead (negative: behind).
    case deviceClock(offset: TimeInterval)
    /// Tokens minted from now on live this many seconds.
    case tokenLifetime(TimeInterval)
    case setPaused(Bool)
    /// Waits until a provider event matching `condition` arrives, at most `timeout` seconds.
    case until(ScenarioCondition, timeout: TimeInterval)

    public var needsEmbeddedServer: Bool {
        switch self {
        case .setFault, .clearFaults, .serverClock, .tokenLifetime: true
        case .say, .switchID, .refresh, .setPaused, .until, .deviceClock: false
        }
    }
}
