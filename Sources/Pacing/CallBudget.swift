import Foundation

/// The calls a run makes beside its token fetches (the SDKs' Fleet Engine calls): a paced rate
/// of their own, which gives way while a ramp that starts SDKs is backing off, as a token is
/// what an SDK cannot work without. Its share then shrinks with the square of the ramp's (half
/// the ramp's rate leaves a quarter of this one), down to its floor.
public struct CallBudget: Sendable {
    public let pacer: Pacer
    /// The ramp these calls give way to; nil when nothing comes first.
    public let ramp: Pacer?

    public init(ceiling: Double, timeout: TimeInterval, givingWayTo ramp: Pacer? = nil) {
        pacer = Pacer(RateControl(ceiling: ceiling, timeout: timeout))
        self.ramp = ramp
    }

    /// A call may go out now (hand the ticket back to `end`), or nil: skip it for now.
    public func take(now: Date) -> Pacer.Ticket? { pacer.take(now: now, scale: share) }

    public func end(_ ticket: Pacer.Ticket, now: Date, overloaded: Bool) {
        pacer.end(ticket, now: now, overloaded: overloaded)
    }

    /// The part of this budget's rate left by the ramp: all of it unless a ramp is running below its ceiling.
    public var share: Double {
        guard let ramp = ramp?.status, ramp.active, ramp.backedOff else { return 1 }
        let part = ramp.rate / ramp.ceiling
        return part * part
    }

    /// The rate in use and why.
    public var status: Pacer.Status {
        var status = pacer.status
        let share = self.share
        if share < 1 {
            status.rate = max(status.rate * share, status.floor)
            status.reason = .givingWay
        }
        return status
    }
}
