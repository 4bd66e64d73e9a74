import Foundation
import ProviderEvents
import ProviderVocabulary

/// One member of a fleet as its provider's events describe it: what the fleet table's state,
/// expiry and requests columns show. Every field comes from an event, so a replay of the events
/// rebuilds it. Plain values only (the ID and the last error's text are kept beside it): the
/// summary walks 20,000 of these a second without touching a reference count.
public struct MemberRecord: Sendable {
    package init() {}

    /// The cached token's expiry; kept after `expired` (the member is then expired), cleared when the ID changes.
    @usableFromInline package var expiresAt: Date?
    /// The provider's (jittered) refresh point for that token.
    @usableFromInline package var refreshAt: Date?
    /// When the last failure came.
    @usableFromInline package var failedAt: Date?
    /// Consecutive failures since the last token; the provider's backoff doubles with them.
    @usableFromInline package var failures = 0
    /// A 429 or 503's `Retry-After`, which the provider obeys beyond its own backoff.
    @usableFromInline package var retryAfter: Int?
    @usableFromInline package var fetching = false
    /// Requests to the backend for this ID.
    package var requests = 0
    /// The SDK has made its first call (any event says so); kept when its ID changes, as the
    /// ramp's count of started SDKs is of SDKs, not IDs.
    package var started = false
    /// Fleet Engine's answer to the member's last call, as a `FleetEngineStatus` code (0: no call yet).
    package var fleetEngine: UInt8 = 0

    package mutating func record(_ event: ProviderEvent) {
        started = true
        switch event.kind {
        case .fetchStarted:
            requests += 1
            fetching = true
        case .fetched(let token, _):
            expiresAt = token.expiresAt
            refreshAt = token.refreshAt
            failures = 0
            retryAfter = nil
            fetching = false
        case .fetchFailed(let error, _):
            // A discarded answer for a previous ID says nothing about this one.
            if case .superseded = error { return }
            failedAt = event.time
            failures += 1
            if case .httpStatus(_, _, let seconds?) = error { retryAfter = seconds } else { retryAfter = nil }
            fetching = false
        case .cacheDropped:
            expiresAt = nil
            refreshAt = nil
        case .fleetEngineCall(let answer):
            fleetEngine = FleetEngineStatus.code(answer.status)
        default:
            break
        }
    }

    /// The status at `now`; backing off is judged by `MemberStatus.retryPoint`. Public and
    /// inlinable, as the other per-member reads the summary and the table make for each of
    /// 100,000 members a frame: called across the module's edge it was not inlined (nor as a
    /// `package` function marked inlinable, with Swift 6.3), and a 100,000-provider frame took 1.7
    /// times as long as when the record lived in Fleet (tokendash-bench render, fleet_frame_100k_us:
    /// 545 µs against 316; 301 inlined).
    @inlinable public func status(at now: Date, backoff: BackoffPolicy) -> MemberStatus {
        if let expiresAt, expiresAt > now { return failures > 0 ? .stale : .ok }
        if failures > 0 {
            if !fetching, let failedAt,
                now
                    < MemberStatus.retryPoint(
                        failures: failures, lastAt: failedAt, retryAfter: retryAfter, backoff: backoff)
            {
                return .backingOff
            }
            return .failing
        }
        return expiresAt == nil ? .noToken : .expired
    }

    /// Inside the refresh margin: the token is valid and its refresh point has passed.
    @inlinable public func inRefreshMargin(at now: Date) -> Bool {
        guard let expiresAt, let refreshAt else { return false }
        return refreshAt <= now && now < expiresAt
    }
}
