import Foundation
import Pacing

/// SDKs a ramp had not started when the run ended, and why: they never asked, so nothing was
/// judged of them, and a health check that exits 0 then says a backend is healthy when nothing
/// was asked of it.
public struct RampShortfall: Sendable, Equatable {
    /// SDKs that never made their first call, and all the SDKs of the run.
    public let missing: Int
    public let total: Int
    /// The first few of those SDKs' IDs, in ramp order.
    public let firstIDs: [String]
    public let reason: String

    /// Nil when every SDK had started.
    public init?(started: Int, total: Int, firstIDs: [String], pace: Pacer.Status, ramp: FleetRamp) {
        guard started < total else { return nil }
        missing = total - started
        self.total = total
        self.firstIDs = firstIDs
        reason = Self.reason(pace: pace, ramp: ramp)
    }

    /// What held them back, read off the pace when the run ended: a window full of calls not yet
    /// answered (never, or slowly), a pace the backend's answers had cut, or only the ramp's schedule.
    static func reason(pace: Pacer.Status, ramp: FleetRamp) -> String {
        if pace.inFlight >= pace.window {
            if case .starting = pace.reason {
                return "the backend never answered: the window's \(pace.window) calls in flight were still waiting"
            }
            return "the window of \(pace.window) calls in flight was full: the backend answered slower than the ramp"
                + " (\(pace.summary()))"
        }
        if pace.backedOff { return "the backend's answers had slowed the ramp to \(pace.summary())" }
        return String(format: "the ramp (--ramp %g s) had not reached them yet", ramp.duration)
    }

    /// One line: how many, which, why.
    public var description: String {
        let shown = firstIDs.prefix(3).joined(separator: ", ")
        let more = missing > firstIDs.prefix(3).count ? " and \(missing - firstIDs.prefix(3).count) more" : ""
        return "\(missing) of \(total) SDKs never made their first call (\(shown)\(more)), so they are not judged: "
            + reason
    }
}
