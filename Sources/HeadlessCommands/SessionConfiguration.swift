import Fleet
import FleetEngineAPI
import Foundation
import HTTPTransport
import ProviderVocabulary
import ProxyKit
import TokenReading

/// Everything a session's start reads, as one plain value: flags, config file and profile are
/// resolved into it once (`BackendOptions.resolved()`), after their checks, so the start takes
/// no command-line type and a test can make one by hand.
package struct SessionConfiguration: Sendable {
    /// The customer's own class for one side: its files and the class chosen among them.
    package struct Source: Sendable, Equatable {
        package var paths: [String]
        package var className: String?
    }

    package var solution: ProviderKind.Solution
    /// The sides that run: both, or the one `--only` names.
    package var roles: [ProviderKind.Role]
    /// Every `--header` and profile header, parsed.
    package var headers: [HTTPHeader]
    /// The proxy every request is routed by, from `--proxy`, `--no-proxy` or the environment.
    package var proxy: ProxySettings
    package var trust: HTTPClientTransport.Trust
    package var timeout: TimeInterval
    /// The embedded server's token lifetime, in seconds.
    package var lifetime: Int
    /// `--fleet-engine-log`: where the embedded emulator writes its calls.
    package var fleetEngineLog: String?
    /// The sides whose provider is the customer's own source.
    package var sources: [ProviderKind.Role: Source]
    package var swiftc: String?
    package var noSanitize: Bool
    package var completionTimeout: TimeInterval
    package var updateInterval: TimeInterval
    package var refreshMargin: TimeInterval
    package var providerID: String?
    package var jwks: String?
    package var providerLogic: ProviderLogic
    package var ramp: FleetRamp
    /// The SDKs this instance runs: its shard's slice of each side that runs.
    package var runningSDKs: Int
    /// The IDs each kind's SDKs start with.
    package var initialIDs: [ProviderKind: [String]]
    /// The user's backend URLs; neither means the embedded server.
    package var consumerURL: String?
    package var driverURL: String?
    package var tokenKey: String?
    package var expiryKey: String?
    package var expiry: ExpiryMode?
    /// `--fleet-engine`, `--fleet-engine-writes`, `--no-fleet-engine`, and the interval asked for.
    package var fleetEngineURL: String?
    package var fleetEngineWrites: Bool
    package var noFleetEngine: Bool
    package var fleetEngineInterval: TimeInterval

    package var usesEmbeddedServer: Bool { consumerURL == nil && driverURL == nil }

    /// The endpoint for `kind`: the user's URL if given, else the embedded server's route under
    /// `embeddedBase`. Keys and expiry mode are the kind's sample backend's unless given.
    package func endpoint(_ kind: ProviderKind, embeddedBase: String?) -> TokenEndpoint {
        var endpoint = TokenEndpoint.sampleBackend(kind, base: embeddedBase ?? "http://127.0.0.1")
        let given = kind.role == .consumer ? consumerURL : driverURL
        if let given { endpoint.urlTemplate = given }
        if let tokenKey { endpoint.tokenKey = tokenKey }
        if let expiryKey { endpoint.expiryKey = expiryKey }
        if let expiry { endpoint.expiryMode = expiry }
        endpoint.headers = headers
        endpoint.timeout = timeout
        endpoint.providerID = providerID
        endpoint.lifetimeChosen = given == nil
        return endpoint
    }

    /// Where the SDKs' Fleet Engine calls go: `--fleet-engine`, else the embedded emulator at
    /// `embeddedBase` (for `embeddedProject`), else nowhere. A fleet's interval is stretched to
    /// keep the run within `FleetEngineTarget.maximumRate` calls a second.
    package func fleetEngineTarget(embeddedBase: String?, embeddedProject: String?) -> FleetEngineTarget? {
        if noFleetEngine { return nil }
        let interval = FleetEngineTarget.interval(for: runningSDKs, asked: fleetEngineInterval)
        if let fleetEngineURL, let url = URL(string: fleetEngineURL), let providerID {
            return FleetEngineTarget(
                base: url, provider: providerID, writes: fleetEngineWrites, interval: interval, timeout: timeout)
        }
        guard let embeddedBase, let url = URL(string: embeddedBase), let embeddedProject else { return nil }
        return FleetEngineTarget(
            base: url, provider: embeddedProject, writes: true, interval: interval, timeout: timeout)
    }
}

extension BackendOptions {
    /// The plain value the session starts from. Throws the one-line reason a proxy URL is
    /// unusable (`validate()` has said it already for flags; a profile's is checked here too).
    package func resolved(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ProxyURLError)
        -> SessionConfiguration
    {
        var sources: [ProviderKind.Role: SessionConfiguration.Source] = [:]
        for role in ProviderKind.Role.allCases {
            if let (paths, className) = source(role) { sources[role] = .init(paths: paths, className: className) }
        }
        var initialIDs: [ProviderKind: [String]] = [:]
        for kind in [solution.consumerKind, solution.driverKind] { initialIDs[kind] = self.initialIDs(kind) }
        return SessionConfiguration(
            solution: solution, roles: roles, headers: backendFlags.headers.compactMap(HTTPHeader.init(parsing:)),
            proxy: try proxySettings(environment: environment), trust: trust, timeout: timeout, lifetime: lifetime,
            fleetEngineLog: fleetEngine.log.path, sources: sources, swiftc: ownProvider.swiftc,
            noSanitize: ownProvider.noSanitize, completionTimeout: completionTimeout, updateInterval: updateInterval,
            refreshMargin: refreshMargin, providerID: backendFlags.providerID, jwks: backendFlags.jwks,
            providerLogic: providerLogic, ramp: ramp, runningSDKs: runningSDKs, initialIDs: initialIDs,
            consumerURL: backendFlags.consumerURL, driverURL: backendFlags.driverURL,
            tokenKey: backendFlags.tokenKey, expiryKey: backendFlags.expiryKey, expiry: backendFlags.expiry,
            fleetEngineURL: fleetEngine.fleetEngineURL, fleetEngineWrites: fleetEngine.fleetEngineWrites,
            noFleetEngine: fleetEngine.noFleetEngine, fleetEngineInterval: fleetEngineInterval)
    }
}
