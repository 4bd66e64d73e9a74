import Foundation
import Synchronization

/// A `RateControl` shared by every task that calls one backend, with the calls in flight it has
/// let out and a `CongestionWindow` over them. The window is what bounds a slow or stalled
/// backend at once: new calls stop after the window's worth, before any latency is measured.
/// Times come from the callers (their injected clocks), so tests step them.
public final class Pacer: Sendable {
    /// One call let out: hand it back to `end` with its outcome.
    public struct Ticket: Sendable, Hashable {
        let number: UInt64
        public let start: Date
        /// The control's generation when the call went out.
        let generation: Int
    }

    public struct Status: Sendable, Equatable {
        /// Calls a second now: the rate's, or fewer when the window holds them back (the window
        /// over the recent latency, by Little's law). And the most allowed.
        public var rate: Double
        public var ceiling: Double
        /// The fewest calls a second, however the backend answers.
        public var floor: Double
        public var reason: PaceReason
        public var inFlight: Int
        /// How many calls may be out at once now (the congestion window).
        public var window: Int
        /// Whether anyone is pacing by it now (a ramp that is still starting SDKs).
        public var active: Bool
        public init(
            rate: Double, ceiling: Double, floor: Double, reason: PaceReason, inFlight: Int, window: Int = .max,
            active: Bool
        ) {
            self.rate = rate
            self.ceiling = ceiling
            self.floor = floor
            self.reason = reason
            self.inFlight = inFlight
            self.window = window
            self.active = active
        }

        /// Whether the rate is below its ceiling: the backend has pushed back.
        public var backedOff: Bool { rate < ceiling * 0.999 }
    }

    private struct State {
        var control: RateControl
        var inFlight: [UInt64: Ticket] = [:]
        var next: UInt64 = 0
        var periodStart: Date?
        /// Unspent calls of the token bucket `take` draws from, and when it was last filled.
        var credit: Double = 0
        var filled: Date?
        var lanes = 0
        var window: CongestionWindow
        /// The latency of recent answers to calls made since the last cut, smoothed as TCP's SRTT (1/8 new).
        var smoothedLatency: Double?

        /// Calls a second the window allows at the recent latency; the rate's when that is the smaller.
        var rate: Double {
            guard let latency = smoothedLatency, latency > 0 else { return control.rate }
            return min(control.rate, max(control.floor, window.size / latency))
        }
    }

    /// How often the rate is reconsidered: TCP does it once a round trip; a second holds enough
    /// answers at any rate worth controlling.
    public let period: TimeInterval
    /// The largest window: seconds of the ceiling's calls on top of the backend's floor latency.
    public let windowSeconds: TimeInterval
    public let minimumWindow: Int
    // Guards the control, the calls in flight and the bucket: every caller's task reads and writes them.
    private let state: Mutex<State>

    public init(
        _ control: RateControl, period: TimeInterval = 1, windowSeconds: TimeInterval = 2, minimumWindow: Int = 16
    ) {
        self.period = period
        self.windowSeconds = windowSeconds
        self.minimumWindow = minimumWindow
        state = Mutex(State(control: control, window: CongestionWindow(minimum: minimumWindow)))
    }

    public var status: Status {
        state.withLock { s in
            Status(
                rate: s.rate, ceiling: s.control.ceiling, floor: s.control.floor, reason: s.control.reason,
                inFlight: s.inFlight.count, window: window(s), active: s.lanes > 0)
        }
    }

    /// A caller starts pacing by this (a group's ramp); `laneEnded` when it is done.
    public func laneStarted() { state.withLock { $0.lanes += 1 } }
    public func laneEnded() { state.withLock { $0.lanes = max(0, $0.lanes - 1) } }

    /// How many more calls the window lets out at `now`.
    public func room(now: Date) -> Int {
        state.withLock { s in
            roll(&s, now: now)
            return max(0, window(s) - s.inFlight.count)
        }
    }

    /// A call goes out at `now`, whether or not `room` was asked first.
    public func begin(now: Date) -> Ticket {
        state.withLock { s in
            roll(&s, now: now)
            return issue(&s, now: now)
        }
    }

    /// The call of `ticket` was answered at `now`; `overloaded` when the answer said the backend is.
    public func end(_ ticket: Ticket, now: Date, overloaded: Bool) {
        state.withLock { s in
            guard s.inFlight.removeValue(forKey: ticket.number) != nil else { return }
            let latency = max(0, now.timeIntervalSince(ticket.start))
            let fresh = ticket.generation == s.control.generation
            s.control.answered(latency: latency, overloaded: overloaded, generation: ticket.generation)
            if fresh {
                s.smoothedLatency = s.smoothedLatency.map { $0 * 7 / 8 + latency / 8 } ?? latency
                let queueing = latency - (s.control.floorLatency ?? latency)
                if !overloaded, queueing < s.control.slowQueueing { s.window.calmAnswer(maximum: maximumWindow(s)) }
            }
            roll(&s, now: now)
        }
    }

    /// A call from the token bucket at the current rate times `scale`, within the window, or nil:
    /// the caller skips this call and asks again at its next chance. A second's calls may gather.
    public func take(now: Date, scale: Double = 1) -> Ticket? {
        state.withLock { s -> Ticket? in
            roll(&s, now: now)
            let rate = max(s.control.floor, s.control.rate * min(1, max(0, scale)))
            // A second's calls may gather, and do before the first: a run starts with a second's worth.
            let cap = max(1, rate)
            s.credit = s.filled.map { min(cap, s.credit + max(0, now.timeIntervalSince($0)) * rate) } ?? cap
            s.filled = now
            guard s.credit >= 1, s.inFlight.count < window(s) else { return nil }
            s.credit -= 1
            return issue(&s, now: now)
        }
    }

    private func issue(_ s: inout State, now: Date) -> Ticket {
        s.next &+= 1
        let ticket = Ticket(number: s.next, start: now, generation: s.control.generation)
        s.inFlight[s.next] = ticket
        return ticket
    }

    private func window(_ s: State) -> Int { Int(s.window.size) }

    private func maximumWindow(_ s: State) -> Double {
        max(Double(minimumWindow), s.control.ceiling * ((s.control.floorLatency ?? 0) + windowSeconds))
    }

    /// Ends the period when one has passed, with the age of the oldest call still out that was
    /// made since the last cut (older ones were counted in it).
    private func roll(_ s: inout State, now: Date) {
        guard let start = s.periodStart else {
            s.periodStart = now
            return
        }
        guard now.timeIntervalSince(start) >= period else { return }
        let generation = s.control.generation
        let oldest = s.inFlight.values.lazy.filter { $0.generation == generation }.map(\.start).min().map {
            now.timeIntervalSince($0)
        }
        let rate = s.control.rate
        s.control.endPeriod(oldestWaiting: oldest)
        // The rate's cut is the window's: both say the backend pushed back by as much.
        if s.control.generation != generation { s.window.cut(by: s.control.rate / rate) }
        s.periodStart = now
    }
}
