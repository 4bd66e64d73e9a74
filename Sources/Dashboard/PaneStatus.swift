import Fleet
import FleetAuth
import Foundation
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
    /// No valid token and the last fetch failed; the provider asks again at the next call.
    case failing
    /// No valid token, the last fetch failed, and the provider waits out its backoff: callers are
    /// told `retrying in N s` without a request (`MemberStatus.retryPoint`, as the fleet table says).
    case backingOff

    public init(_ pane: PaneState, now: Date, paused: Bool) {
        guard let token = pane.token, token.expiresAt > now else {
            if pane.fetching {
                self = .fetching
            } else if pane.lastError != nil {
                self = Self.waitsOutBackoff(pane, now) ? .backingOff : .failing
            } else {
                self = pane.token == nil ? .waiting : .expired
            }
            return
        }
        if pane.fetching {
            self = .refreshing
        } else if pane.lastError != nil {
            self = .stale
        } else {
            self = paused ? .paused : .ok
        }
    }

    /// Whether the failures at the end of the pane's timeline still hold the provider back.
    /// (A `Retry-After` is not in the pane's events' outcomes; the table counts it.)
    private static func waitsOutBackoff(_ pane: PaneState, _ now: Date) -> Bool {
        let outcomes = pane.timeline.outcomes
        guard let last = outcomes.last, !last.ok else { return false }
        let failures = outcomes.reversed().prefix { !$0.ok }.count
        return now < MemberStatus.retryPoint(failures: failures, lastAt: last.time)
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
        case .failing: "failing"
        case .backingOff: "backing off"
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
