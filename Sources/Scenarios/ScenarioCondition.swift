import Foundation
import ProviderEvents
import ProviderVocabulary

/// What an `until:` step waits for: a provider event (by the name `watch` prints), or a
/// particular case of one, optionally on one side only.
public struct ScenarioCondition: Sendable, Equatable, CustomStringConvertible {
    /// The events an `until:` can name.
    public enum Trigger: Sendable, Hashable {
        case event(ProviderEvent.Name)
        /// A fetch started ahead of expiry (`fetch_started`, reason refresh ahead).
        case refreshAhead
        /// A late response for an ID no longer current thrown away (`fetch_failed`, superseded).
        case discarded
        /// An HTTP 429 (`fetch_failed`).
        case rateLimited
        /// A token refused by the rules: wrong ID, expired, iat in the future... (`fetch_failed`).
        case rejected
        /// Fleet Engine answered an SDK's call with success (`fleet_engine_call`).
        case fleetEngineOK
        /// Fleet Engine refused an SDK's token: HTTP 401 or 403 (`fleet_engine_call`).
        case fleetEngineRefused
        /// Fleet Engine's answer contradicts tokendash's rules on the token (`fleet_engine_call`).
        case verdictDisagrees

        /// The cases with names of their own, and what each means.
        public static let special: [(Trigger, String, String)] = [
            (.refreshAhead, "refresh_ahead", "a fetch started ahead of expiry (fetch_started, reason refresh ahead)"),
            (
                .discarded, "discarded",
                "a late response for an ID no longer current thrown away (fetch_failed, superseded)"
            ),
            (.rateLimited, "rate_limited", "an HTTP 429 (fetch_failed)"),
            (
                .rejected, "rejected",
                "a token refused by the rules: wrong ID, expired, iat in the future... (fetch_failed)"
            ),
            (.fleetEngineOK, "fleet_engine_ok", "Fleet Engine answered an SDK's call with success (fleet_engine_call)"),
            (
                .fleetEngineRefused, "fleet_engine_refused",
                "Fleet Engine refused an SDK's token, HTTP 401 or 403 (fleet_engine_call)"
            ),
            (
                .verdictDisagrees, "verdict_disagrees",
                "Fleet Engine's answer contradicts tokendash's rules on the token (fleet_engine_call)"
            ),
        ]

        public init?(name: String) {
            if let event = ProviderEvent.Name(rawValue: name) {
                self = .event(event)
            } else if let special = Self.special.first(where: { $0.1 == name }) {
                self = special.0
            } else {
                return nil
            }
        }

        public var name: String {
            switch self {
            case .event(let name): name.rawValue
            case .refreshAhead, .discarded, .rateLimited, .rejected, .fleetEngineOK, .fleetEngineRefused,
                .verdictDisagrees:
                Self.special.first { $0.0 == self }?.1 ?? "\(self)"
            }
        }
    }

    public var trigger: Trigger
    public var side: ScenarioSide?

    public init(_ trigger: Trigger, side: ScenarioSide? = nil) {
        self.trigger = trigger
        self.side = side
    }

    public static var names: [String] { ProviderEvent.allNames + Trigger.special.map(\.1).sorted() }

    public var description: String { side.map { "\(trigger.name) \($0.rawValue)" } ?? trigger.name }

    public func matches(_ event: ProviderEvent) -> Bool {
        if let side, event.provider.role.rawValue != side.rawValue { return false }
        switch trigger {
        case .event(let name): return event.eventName == name
        case .refreshAhead:
            if case .fetchStarted(.refreshAhead) = event.kind { return true }
        case .discarded:
            if case .fetchFailed(.superseded, _) = event.kind { return true }
        case .rateLimited:
            if case .fetchFailed(.httpStatus(429, _, _), _) = event.kind { return true }
        case .rejected:
            if case .fetchFailed(let error, _) = event.kind { return error.isTokenRejection }
        case .fleetEngineOK:
            if case .fleetEngineCall(let answer) = event.kind { return answer.succeeded }
        case .fleetEngineRefused:
            if case .fleetEngineCall(let answer) = event.kind { return answer.tokenVerdict == .refused }
        case .verdictDisagrees:
            if case .fleetEngineCall(let answer) = event.kind { return answer.verdictDisagrees }
        }
        return false
    }
}
