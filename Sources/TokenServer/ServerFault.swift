import Foundation
import FleetAuth

/// A failure the server produces on purpose so a client's handling of it can be watched.
public enum ServerFault: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Answers normally, this much later.
    case latency(milliseconds: Int)
    /// Answers HTTP 500 with a JSON error body.
    case http500
    /// Answers HTTP 401: the backend refuses the app's credentials.
    case http401
    /// Answers HTTP 429 with `Retry-After: seconds`.
    case rateLimited(retryAfterSeconds: Int)
    /// Answers 200 with a body cut off mid-JSON.
    case malformedJSON
    /// A valid token whose authorization claim names another ID.
    case wrongID
    /// A valid token that expired a minute before it was sent.
    case expired
    /// Closes the connection without any HTTP response.
    case drop

    public static let defaultLatencyMilliseconds = 3000
    public static let defaultRetryAfterSeconds = 30

    /// One of each, in menu order.
    public static let allCases: [ServerFault] = [
        .latency(milliseconds: defaultLatencyMilliseconds), .http500, .http401, .rateLimited(retryAfterSeconds: defaultRetryAfterSeconds),
        .malformedJSON, .wrongID, .expired, .drop,
    ]

    /// The name used in URLs (`PUT /faults/consumer/wrong-id`) and on the command line.
    public var name: String {
        switch self {
        case .latency: "latency"
        case .http500: "http500"
        case .http401: "http401"
        case .rateLimited: "rate-limited"
        case .malformedJSON: "malformed"
        case .wrongID: "wrong-id"
        case .expired: "expired"
        case .drop: "drop"
        }
    }

    /// A short label for a menu or a status line.
    public var label: String {
        switch self {
        case .latency(let ms): "slow (+\(ms) ms)"
        case .http500: "HTTP 500"
        case .http401: "HTTP 401"
        case .rateLimited(let seconds): "HTTP 429 (Retry-After \(seconds) s)"
        case .malformedJSON: "malformed JSON"
        case .wrongID: "token for wrong ID"
        case .expired: "expired token"
        case .drop: "drop connection"
        }
    }

    public var description: String { label }

    /// Parses a fault `name`; `milliseconds` sets the delay of `latency`.
    public init?(name: String, milliseconds: Int? = nil) {
        switch name.lowercased() {
        case "latency", "slow":
            let ms = milliseconds ?? Self.defaultLatencyMilliseconds
            guard ms >= 0 else { return nil }
            self = .latency(milliseconds: ms)
        case "http500", "500": self = .http500
        case "http401", "401": self = .http401
        case "rate-limited", "429": self = .rateLimited(retryAfterSeconds: Self.defaultRetryAfterSeconds)
        case "malformed", "malformed-json": self = .malformedJSON
        case "wrong-id", "wrongid": self = .wrongID
        case "expired": self = .expired
        case "drop": self = .drop
        default: return nil
        }
    }

    /// Fault names accepted by `init(name:)`, for help and error messages.
    public static var names: [String] { allCases.map(\.name) }
}

/// Which provider's requests a fault applies to.
/// Faults apply by kind: a fault on the trip route leaves tracking tokens alone.
public enum FaultTarget: String, Sendable, CaseIterable {
    case consumer, driver, both
    case deliveryConsumer = "delivery_consumer"
    case deliveryDriver = "delivery_driver"
    /// Both last-mile kinds, as `both` is both on-demand ones.
    case deliveries

    public var kinds: [ProviderKind] {
        switch self {
        case .consumer: [.consumer]
        case .driver: [.driver]
        case .both: [.consumer, .driver]
        case .deliveryConsumer: [.deliveryConsumer]
        case .deliveryDriver: [.deliveryDriver]
        case .deliveries: [.deliveryConsumer, .deliveryDriver]
        }
    }

    /// The target for one kind alone.
    public init(_ kind: ProviderKind) {
        switch kind {
        case .consumer: self = .consumer
        case .driver: self = .driver
        case .deliveryConsumer: self = .deliveryConsumer
        case .deliveryDriver: self = .deliveryDriver
        }
    }

    /// The target for both kinds of a solution.
    public static func both(_ solution: ProviderKind.Solution) -> FaultTarget {
        solution == .onDemand ? .both : .deliveries
    }
}
