import Fleet
import FleetEngineAPI
import Foundation
import Pacing
import ProviderEvents
import ProviderProxy
import ProviderVocabulary
import Redaction
import TokenServer

/// Everything behind the screen or the JSON lines: the backend (embedded or the user's), one
/// shared transport and event stream, and the simulated SDKs of the solution's two kinds. Made
/// from the command's flags by `tokendash` (`BackendSession.start`); tests make one over a fake
/// transport.
public struct BackendSession: Sendable {
    public let server: EmbeddedTokenServer?
    public let events: EventBroadcaster
    public let solution: ProviderKind.Solution
    /// The consumer-side SDKs (trips, or tracked shipments) and the driver-side ones (vehicles,
    /// or delivery vehicles); existentials so that either solution's pair fits.
    public let consumers: any SDKGroup
    public let drivers: any SDKGroup
    /// The simulated phones' clock, which a scenario may put wrong.
    public let deviceClock: DeviceClock
    /// Where the SDKs' Fleet Engine calls go; nil when they make none.
    public let fleetEngine: FleetEngineTarget?
    public let consumerEndpoint: TokenEndpoint
    public let driverEndpoint: TokenEndpoint
    public let transport: any SessionTransport
    /// The sides that run (`--only`); the other group exists but never asks for a token.
    public let roles: [ProviderKind.Role]
    /// The sides running the customer's own class, and what the pane's title says of it.
    public let sourceLabels: [ProviderKind.Role: String]
    /// What was filled in and built for them, a line each, for stderr.
    public let sourceNotes: [String]
    /// The pace of the first token calls (the ramp) and of the Fleet Engine calls: one backend
    /// serves both sides, so both groups share them.
    public let pacing: FleetPacing
    /// The loopback proxies in front of the source providers' hosts, by kind.
    public let proxies: [ProviderKind: ProviderProxy]
    /// What the start started, to be stopped in the reverse order: the same steps that undo a
    /// failed start end a finished run. Nil for a session made by hand (tests).
    public let teardown: Teardown?
    /// Where each kind's fault acts: its source provider's proxy, or the embedded server.
    public var faults: SessionFaults { SessionFaults(server: server, proxied: proxies.mapValues(\.faults)) }

    /// TLS certificates are not verified (`--insecure`): the header shows it in red, `watch` on every line.
    public var insecure: Bool { transport.isInsecure }

    public init(
        server: EmbeddedTokenServer?, events: EventBroadcaster, solution: ProviderKind.Solution,
        consumers: any SDKGroup, drivers: any SDKGroup, deviceClock: DeviceClock, fleetEngine: FleetEngineTarget?,
        consumerEndpoint: TokenEndpoint, driverEndpoint: TokenEndpoint, transport: any SessionTransport,
        roles: [ProviderKind.Role], sourceLabels: [ProviderKind.Role: String] = [:], sourceNotes: [String] = [],
        proxies: [ProviderKind: ProviderProxy] = [:], pacing: FleetPacing = FleetPacing(), teardown: Teardown? = nil
    ) {
        self.teardown = teardown
        self.server = server
        self.events = events
        self.solution = solution
        self.consumers = consumers
        self.drivers = drivers
        self.deviceClock = deviceClock
        self.fleetEngine = fleetEngine
        self.consumerEndpoint = consumerEndpoint
        self.driverEndpoint = driverEndpoint
        self.transport = transport
        self.roles = roles
        self.sourceLabels = sourceLabels
        self.sourceNotes = sourceNotes
        self.proxies = proxies
        self.pacing = pacing
    }

    /// The group on `role`'s side.
    public func group(_ role: ProviderKind.Role) -> any SDKGroup { role == .consumer ? consumers : drivers }

    /// Runs both groups' location-update loops until the returned task is cancelled, each side's
    /// first calls spread over the same `ramp` at the pace the backend's answers allow.
    public func runUpdateLoops(interval: TimeInterval, callers: Int, ramp: FleetRamp) -> Task<Void, Never> {
        let (consumers, drivers, roles) = (self.consumers, self.drivers, self.roles)
        let clock = SystemClock()
        let pacer = pacing.ramp
        return Task {
            async let a: Void =
                roles.contains(.consumer)
                ? consumers.run(interval: interval, callers: callers, ramp: ramp, clock: clock, pacer: pacer) : ()
            async let b: Void =
                roles.contains(.driver)
                ? drivers.run(interval: interval, callers: callers, ramp: ramp, clock: clock, pacer: pacer) : ()
            _ = await (a, b)
        }
    }

    /// SDKs that made their first call, and all the SDKs that run (the sides `--only` leaves).
    public func startedSDKs() async -> (started: Int, total: Int) {
        var started = 0
        var total = 0
        for role in roles {
            started += await group(role).started
            total += await group(role).count
        }
        return (started, total)
    }

    /// The SDKs `ramp` had not started, the first of them named, and why; nil when all had.
    public func rampShortfall(_ ramp: FleetRamp) async -> RampShortfall? {
        let (started, total) = await startedSDKs()
        guard started < total else { return nil }
        var firstIDs: [String] = []
        for role in roles where firstIDs.count < 3 {
            let group = group(role)
            let (begun, count) = (await group.started, await group.count)
            for index in begun..<min(count, begun + 3 - firstIDs.count) { firstIDs.append(await group.id(at: index)) }
        }
        return RampShortfall(started: started, total: total, firstIDs: firstIDs, pace: pacing.ramp.status, ramp: ramp)
    }

    /// One line for a header: where tokens come from, and through which proxy.
    public var backendDescription: String {
        if server != nil, let url = URL(string: consumerEndpoint.urlTemplate), let port = url.port {
            return "embedded on 127.0.0.1:\(port)"
        }
        let templates = roles.map { ($0 == .consumer ? consumerEndpoint : driverEndpoint).urlTemplate }
        let backends = templates.map(SecretRedactor.redact).joined(separator: " | ")
        return proxyDescription(templates).map { backends + " via proxy " + $0 } ?? backends
    }

    /// One line for `watch`'s start: where the SDKs' Fleet Engine calls go, and how often.
    public func fleetEngineDescription(sdks: Int, asked: TimeInterval) -> String {
        guard let target = fleetEngine else {
            return "Fleet Engine: no calls (--no-fleet-engine, or a backend of your own without --fleet-engine)"
        }
        let place =
            server != nil && target.base.host == "127.0.0.1"
            ? "the embedded emulator" : SecretRedactor.redact(target.base.absoluteString)
        var text =
            "Fleet Engine: \(place), providers/\(target.provider)\(target.writes ? "" : ", read-only"), every \(String(format: "%g s", target.interval)) per SDK"
        if target.interval > asked {
            text +=
                " (\(sdks) SDKs: stretched from \(String(format: "%g s", asked)) to stay within \(Int(FleetEngineTarget.maximumRate)) calls a second)"
        }
        return text
    }

    /// The proxies the backend URLs go through (redacted), nil when they all go direct.
    private func proxyDescription(_ templates: [String]) -> String? {
        var used: [String] = []
        for template in templates {
            let bare = template.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")
            if let url = URL(string: bare), let display = transport.proxyDisplay(for: url), !used.contains(display) {
                used.append(display)
            }
        }
        return used.isEmpty ? nil : used.joined(separator: ", ")
    }

    /// Stops what the start started, the last first (the proxies, the server, the transport), by
    /// the start's own `teardown`; returns what could not be written out (the emulator's
    /// `--fleet-engine-log`), in words, for the command to say.
    @discardableResult
    public func stop() async -> [String] {
        events.finish()
        if let teardown {
            await teardown.run(completed: true)
        } else {
            for proxy in proxies.values { await proxy.stop() }
            await server?.stop()
            await transport.shutdown()
        }
        // After the server's stop, so every call it answered is in the file.
        let failure = server?.fleetEngineLog?.close()
        return failure.map { [$0] } ?? []
    }
}
