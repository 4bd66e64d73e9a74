import Fleet
import Foundation
import ProviderVocabulary
import UICore

/// What a pane's status dot says: derived from the token, the last fetch and the clock at render
/// time, so it cannot stay green past expiry while no event arrives (paused, or between SDK calls).
public enum PaneStatus: Equatable, Sendable {
    /// Nothing fetched yet, nothing failed.
    case waiting
    /// The first fetch is in flight.
    case fetching
    case ok
    /// A valid token is served while a new one is fetched.
    case refreshing
    /// The last fetch failed; the cached token is still valid and still served.
    case stale
    /// Updates are paused; the token is still valid.
    case paused
    /// The cached token's `exp` has passed: the SDKs would get a new one at their next call.
    case expired
    /// No valid token, the last fetch failed, and the provider waits before asking again (its
    /// `backing_off` event says until when, and which failure in a row it was).
    case backingOff(retryIn: Int, attempt: Int)
    /// No valid token and the last fetch failed; the provider asks again at the next call.
    case failing

    public init(_ pane: PaneState, now: Date, paused: Bool) {
        // Without a valid token: fetching, or failing, or waiting out a backoff after failures.
        func withoutToken(_ otherwise: PaneStatus) -> PaneStatus {
            if pane.fetching { return .fetching }
            guard pane.lastError != nil else { return otherwise }
            if let retryAt = pane.retryAt, retryAt > now {
                return .backingOff(retryIn: Int(retryAt.timeIntervalSince(now).rounded(.up)), attempt: pane.attempt)
            }
            return .failing
        }
        guard let token = pane.token else {
            self = withoutToken(.waiting)
            return
        }
        if token.expiresAt <= now {
            self = withoutToken(.expired)
        } else if pane.fetching {
            self = .refreshing
        } else if pane.lastError != nil {
            self = .stale
        } else {
            self = paused ? .paused : .ok
        }
    }

    public var label: String {
        switch self {
        case .waiting: "waiting"
        case .fetching: "fetching"
        case .ok: "ok"
        case .refreshing: "refreshing"
        case .stale: "stale"
        case .paused: "paused"
        case .expired: "expired"
        case .backingOff(let retryIn, let attempt): "backing off · retry in \(retryIn) s (attempt \(attempt))"
        case .failing: "failing"
        }
    }

    public var role: StyleRole {
        switch self {
        case .ok: .ok
        case .waiting, .paused: .dim
        case .fetching, .refreshing, .stale, .backingOff: .warning
        case .expired, .failing: .error
        }
    }
}
