import Fleet
import FleetAuth
import Foundation
import Scenarios
import TokenServer

/// The target scenarios drive in the dashboard and in the tests: the simulated SDKs of both
/// sides (their first member: the one a pane shows first) and the embedded server, when there
/// is one. Refreshes and switches are started, not awaited: a script goes on while a slow
/// backend answers, as a user would.
public struct LiveScenarioTarget: ScenarioTarget {
    /// What changed that a screen shows outside the event stream.
    public enum Change: Sendable, Equatable {
        case faults([ProviderKind: ServerFault])
        case paused(Bool)
    }

    public let server: EmbeddedTokenServer?
    public let consumers: any SDKGroup
    public let drivers: any SDKGroup
    private let notify: @Sendable (Change) -> Void

    public init(server: EmbeddedTokenServer?, consumers: any SDKGroup, drivers: any SDKGroup,
                notify: @escaping @Sendable (Change) -> Void = { _ in }) {
        self.server = server
        self.consumers = consumers
        self.drivers = drivers
        self.notify = notify
    }

    private func groups(_ scope: ScenarioScope) -> [any SDKGroup] {
        switch scope {
        case .consumer: [consumers]
        case .driver: [drivers]
        case .both: [consumers, drivers]
        }
    }

    public func switchID(_ side: ScenarioSide, to id: String?) async {
        let group = side == .consumer ? consumers : drivers
        let next = if let id { id } else { IDSequence.next(after: await group.id(at: 0)) }
        Task { await group.switchID(at: 0, to: next) }
    }

    public func setFault(_ fault: ScenarioFault?, _ scope: ScenarioScope, latencyMilliseconds: Int?) async {
        guard let server else { return }
        let kinds = groups(scope).map(\.kind)
        for kind in kinds {
            await server.setFault(fault.map { Self.serverFault($0, latencyMilliseconds: latencyMilliseconds) }, for: FaultTarget(kind))
        }
        notify(.faults(await server.faults()))
    }

    public func refresh(_ scope: ScenarioScope) async {
        for group in groups(scope) { Task { await group.forceRefresh(at: 0) } }
    }

    public func setServerClockOffset(_ seconds: TimeInterval) async {
        await server?.setClockOffset(seconds)
    }

    public func setTokenLifetime(_ seconds: TimeInterval?) async {
        // The parser keeps lifetimes in Fleet Engine's range, which is the server's.
        try? await server?.setLifetime(seconds)
    }

    public func setPaused(_ paused: Bool) async {
        consumers.setPaused(paused)
        drivers.setPaused(paused)
        notify(.paused(paused))
    }

    /// The server's fault for a scenario's, as the fault menu sets it.
    public static func serverFault(_ fault: ScenarioFault, latencyMilliseconds: Int?) -> ServerFault {
        switch fault {
        case .latency: .latency(milliseconds: latencyMilliseconds ?? ServerFault.defaultLatencyMilliseconds)
        case .http500: .http500
        case .http401: .http401
        case .rateLimited: .rateLimited(retryAfterSeconds: ServerFault.defaultRetryAfterSeconds)
        case .malformed: .malformedJSON
        case .wrongID: .wrongID
        case .expired: .expired
        case .drop: .drop
        }
    }
}
