import FleetAuth
import Foundation

/// What an `until:` step waits for: an event name as `watch` prints it (or one of a few names
/// for a particular case of one), optionally on one side only.
public struct ScenarioCondition: Sendable, Equatable, CustomStringConvertible {
    public var event: String
    public var side: ScenarioSide?

    public init(event: String, side: ScenarioSide? = nil) {
        self.event = event
        self.side = side
    }

    /// Names for particular cases of an event, where the event name alone says too little.
    public static let specialNames: [String: String] = [
        "refresh_ahead": "a fetch started ahead of expiry (fetch_started, reason refresh ahead)",
        "discarded": "a late response for an ID no longer current thrown away (fetch_failed, superseded)",
        "rate_limited": "an HTTP 429 (fetch_failed)",
        "rejected": "a token refused by the rules: wrong ID, expired, iat in the future... (fetch_failed)",
    ]

    public static var names: [String] { ProviderEvent.allNames + specialNames.keys.sorted() }

    public var description: String { side.map { "\(event) \($0.rawValue)" } ?? event }

    public func matches(_ event: ProviderEvent) -> Bool {
        if let side, event.provider.role.rawValue != side.rawValue { return false }
        switch (self.event, event.kind) {
        case ("refresh_ahead", .fetchStarted(let reason)): return reason == .refreshAhead
        case ("discarded", .fetchFailed(.superseded, _)): return true
        case ("rate_limited", .fetchFailed(.httpStatus(let code, _, _), _)): return code == 429
        case ("rejected", .fetchFailed(.rejected, _)), ("rejected", .fetchFailed(.wrongID, _)), ("rejected", .fetchFailed(.alreadyExpired, _)):
            return true
        default: return self.event == event.name
        }
    }
}
