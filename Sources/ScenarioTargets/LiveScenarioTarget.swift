import Faults
import Fleet
import Foundation
import ProviderVocabulary
import Scenarios
import TokenServer

/// The target scenarios drive in the dashboard and in the tests: the simulated SDKs of both
/// sides (their first member: the one a pane shows first) and the embedded server, when there
/// is one. Refreshes and switches are started, not awaited: a script goes on while a slow
/// backend answers, as a user would.
public struct LiveScenarioTarget: ScenarioTarget {
    /// What changed that a screen shows outside the event stream.
    public enum Change: Sendable, Equatable {
        case faults([ProviderKind: FaultSetting])
        case paused(Bool)
    }

    public let server: EmbeddedTokenServer?
    public let consumers: any SDKGroup
    public let drivers: any SDKGroup
    /// The clock the SDKs' providers read; nil when their clock cannot be set.
    public let deviceClock: DeviceClock?
    /// Where each kind's fault acts: the server, or a source provider's proxy.
    private let faults: SessionFaults
    private let notify: @Sendable (Change) -> Void

    public init(
        server: EmbeddedTokenServer?, consumers: any SDKGroup, drivers: any SDKGroup, deviceClock: DeviceClock? = nil,
        proxyFaults: [ProviderKind: ProxyFaultSlot] = [:], notify: @escaping @Sendable (Change) -> Void = { _ in }
    ) {
        self.server = server
        faults = SessionFaults(server: server, proxied: proxyFaults)
        self.consumers = consumers
        self.drivers = drivers
        self.deviceClock = deviceClock
        self.notify = notify
    }

    private func groups(_ scope: RoleScope) -> [any SDKGroup] {
        scope.roles.map { $0 == .consumer ? consumers : drivers }
    }

    public func switchID(_ side: ScenarioSide, to id: String?) async {
        let group = side == .consumer ? consumers : drivers
        let next = if let id { id } else { IDSequence.next(after: await group.id(at: 0)) }
        Task { await group.switchID(at: 0, to: next) }
    }

    public func setFault(_ fault: Fault?, _ scope: RoleScope, latencyMilliseconds: Int?) async {
        guard faults.canInject else { return }
        await faults.set(
            fault, latencyMilliseconds: latencyMilliseconds ?? Fault.defaultLatencyMilliseconds,
            for: groups(scope).map(\.kind))
        notify(.faults(await faults.all()))
    }

    public func refresh(_ scope: RoleScope) async {
        for group in groups(scope) { Task { await group.forceRefresh(at: 0) } }
    }

    public func setServerClockOffset(_ seconds: TimeInterval) async {
        await server?.setClockOffset(seconds)
    }

    public func setDeviceClockOffset(_ seconds: TimeInterval) async {
        deviceClock?.setOffset(seconds)
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
}
