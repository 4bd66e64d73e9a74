import Foundation
import ProviderVocabulary

/// Where one member of a fleet stands, as its events tell it: the table's state column and the
/// fleet rows' counts. Declared trouble-first, in the order the table sorts (members holding a
/// token, stale then ok, each by soonest expiry).
public enum MemberStatus: Int, CaseIterable, Sendable, Comparable {
    /// No valid token, the last fetch failed, and the provider asks again (now, or at the next call).
    case failing
    /// No valid token, the last fetch failed, and the provider is waiting out its backoff (or a
    /// `Retry-After`): callers are told `retrying in N s` without a request.
    case backingOff
    /// The token's `exp` passed and no fetch has failed since.
    case expired
    /// Nothing fetched yet (or the ID just changed).
    case noToken
    /// A valid token is served, but the last fetch failed.
    case stale
    case ok

    @inlinable public static func < (a: MemberStatus, b: MemberStatus) -> Bool { a.rawValue < b.rawValue }

    /// Anything but ok: what `n` / `N` jump between (with a failed Fleet Engine call, `FleetMemberRow.isTrouble`).
    public var isTrouble: Bool { self != .ok }

    /// When a provider asks again after `failures` in a row, the last at `lastAt`: the provider's
    /// own rule replayed from its events, `backoff`'s delay without jitter or the `Retry-After`,
    /// whichever is longer. Before it, a member without a valid token is backing off; after, failing.
    /// The fleet table and a pane's status dot both judge by it, so they agree.
    public static func retryPoint(
        failures: Int, lastAt: Date, retryAfter: Int? = nil, backoff: BackoffPolicy = BackoffPolicy()
    ) -> Date {
        lastAt.addingTimeInterval(max(backoff.delay(afterFailures: failures, unit: 0.5), TimeInterval(retryAfter ?? 0)))
    }
}
