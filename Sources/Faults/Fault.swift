/// A failure the embedded token server produces on purpose, so a client's handling of it can be
/// watched. The one vocabulary of faults: the server's routes, the dashboard's fault menu and
/// header, scenario files and recordings all name a fault by this enum. Adding a fault is a case
/// here and its label below; the compiler then lists what else must decide about it (the
/// server's behaviour).
public enum Fault: String, CaseIterable, Sendable, Hashable, Codable {
    /// Answers normally, later by the setting's delay.
    case latency
    /// Answers HTTP 500 with a JSON error body.
    case http500
    /// Answers HTTP 401: the backend refuses the app's credentials.
    case http401
    /// Answers HTTP 429 with `Retry-After: retryAfterSeconds`.
    case rateLimited
    /// Answers 200 with a body cut off mid-JSON.
    case malformed
    /// A valid token whose authorization claim names another ID.
    case wrongID
    /// A valid token that expired a minute before it was sent.
    case expired
    /// Closes the connection without any HTTP response.
    case drop
    /// Fleet Engine (the embedded emulator) answers 503 UNAVAILABLE: the token is not the problem.
    case fleetEngineUnavailable
    /// Fleet Engine refuses the token's signature: the key that signed it was deleted from the
    /// service account, though the backend still signs with it.
    case revokedKey
    /// Fleet Engine's clock is `fleetEngineSkewSeconds` behind: every fresh token's `iat` is in its future.
    case clockSkew

    /// The latency fault's delay unless one is given.
    public static let defaultLatencyMilliseconds = 3000
    /// How long a 429 tells the client to wait (`Retry-After`), in seconds.
    public static let retryAfterSeconds = 30
    /// How far behind the clock-skew fault puts Fleet Engine's clock: past its 10 minutes of skew.
    public static let fleetEngineSkewSeconds = 900

    /// Whether the fault acts on the Fleet Engine emulator's routes (the SDKs' calls with their
    /// tokens) rather than on the token routes.
    public var isFleetEngine: Bool {
        switch self {
        case .fleetEngineUnavailable, .revokedKey, .clockSkew: true
        case .latency, .http500, .http401, .rateLimited, .malformed, .wrongID, .expired, .drop: false
        }
    }

    /// Whether tokendash's loopback proxy in front of a source provider acts the fault out itself
    /// (late, closed, or answered without the backend). The others need the backend's own hand
    /// (a token minted wrong) or act on the SDK's Fleet Engine calls, which the proxy does not see.
    public var actsAtProxy: Bool {
        switch self {
        case .latency, .http500, .http401, .rateLimited, .malformed, .drop: true
        case .wrongID, .expired, .fleetEngineUnavailable, .revokedKey, .clockSkew: false
        }
    }

    /// The fault's one name on screen: the menu, the header, `GET /faults`. `adjustHint` is how a
    /// screen changes the latency (the menu's keys), shown inside the latency fault's brackets.
    public func label(latencyMilliseconds: Int = defaultLatencyMilliseconds, adjustHint: String? = nil) -> String {
        switch self {
        case .latency: "latency (\(Self.seconds(latencyMilliseconds)) per request\(adjustHint.map { "; \($0)" } ?? ""))"
        case .http500: "HTTP 500"
        case .http401: "HTTP 401 (credentials refused)"
        case .rateLimited: "HTTP 429, Retry-After \(Self.retryAfterSeconds) s"
        case .malformed: "malformed JSON"
        case .wrongID: "token for the wrong ID"
        case .expired: "already-expired token"
        case .drop: "drop the connection"
        case .fleetEngineUnavailable: "Fleet Engine: 503 UNAVAILABLE"
        case .revokedKey: "Fleet Engine: signing key revoked"
        case .clockSkew: "Fleet Engine: clock \(Self.fleetEngineSkewSeconds / 60) min behind"
        }
    }

    /// The name in URLs (`PUT /faults/consumer/wrong-id`), on the command line and in scenario
    /// files: the case's name in kebab case (`rateLimited` is `rate-limited`).
    public var name: String {
        var kebab = ""
        var previousLower = false
        for c in rawValue {
            if c.isUppercase, previousLower { kebab.append("-") }
            kebab.append(contentsOf: c.lowercased())
            previousLower = c.isLowercase
        }
        return kebab
    }

    /// Every name in `names` order, for help and error messages.
    public static var names: [String] { allCases.map(\.name) }

    /// A fault by its name, its case name (`rateLimited`, as recordings and the fault menu wrote
    /// it), in any letter case, with `-` and `_` ignored, or by a short alias (`500`, `429`, `slow`).
    public init?(name: String) {
        let key = name.lowercased().filter { $0 != "-" && $0 != "_" }
        let aliases: [String: Fault] = [
            "slow": .latency, "500": .http500, "401": .http401, "429": .rateLimited, "malformedjson": .malformed,
            "503": .fleetEngineUnavailable, "unavailable": .fleetEngineUnavailable, "skew": .clockSkew,
        ]
        guard let fault = Self.allCases.first(where: { $0.rawValue.lowercased() == key }) ?? aliases[key] else {
            return nil
        }
        self = fault
    }

    /// `3 s`, `3.5 s`: whole tenths, as the menu's < > steps make them.
    static func seconds(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
    }
}

/// A fault as switched on for a kind: which one and, for `latency`, its delay.
public struct FaultSetting: Sendable, Hashable {
    public var fault: Fault
    /// The latency fault's delay; other faults ignore it.
    public var latencyMilliseconds: Int

    public init(_ fault: Fault, latencyMilliseconds: Int = Fault.defaultLatencyMilliseconds) {
        self.fault = fault
        self.latencyMilliseconds = latencyMilliseconds
    }

    public var label: String { fault.label(latencyMilliseconds: latencyMilliseconds) }
}
