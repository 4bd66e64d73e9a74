import Foundation

/// A rate that listens to its backend, as TCP's congestion control does with a window: it
/// climbs back to its ceiling by a twentieth of it a period while answers are fast, eases off
/// by 20 % when they queue, and halves on an answer that says the backend is overloaded.
/// Additive increase and multiplicative decrease converge on what the backend can take, and
/// share it fairly with whoever else calls it (Chiu and Jain, 1989).
///
/// Latency is judged against the backend's own floor, the fastest answer of the last 30 periods:
/// a backend 200 ms away is not overloaded for being 200 ms away, only when answers queue
/// behind each other on top of that. Pure: the caller brings the answers and the periods' ends.
///
/// Near the rate of its last cut it probes in fifths of its usual step, as TCP CUBIC flattens
/// near the window of its last loss: the backend pushed back there once, so the rate creeps up to
/// it and holds, where a full step climbed straight back into the queue and sawed (`tokendash-bench
/// ramp`: a coefficient of variation of 16.0 % with a backend 200 ms away, 14.6 % with the plateau).
///
/// One cut per round trip, as TCP cuts once per window: after a cut, only answers to calls made
/// since (`generation`) may cut again. The calls already queued answer slowly for a while after
/// any cut; counting them would cut again and again, far below what the backend can take.
public struct RateControl: Sendable, Equatable {
    /// The most calls a second, whatever the answers say (`--ramp`'s rate, Fleet Engine's 1,000).
    public let ceiling: Double
    /// The fewest: a backend that is down is still asked, slowly, so its return is noticed.
    public let floor: Double
    /// Queueing on top of the floor latency that counts as slow, in seconds: a twentieth of the
    /// calls' timeout, at most 500 ms. Early, as TCP Vegas reads a round trip growing before any
    /// loss: a queue seen at 500 ms is cut long before it is 10 s deep and times calls out, and
    /// the hiccups of a busy machine (200-300 ms) do not cut a ramp that is keeping up.
    public let slowQueueing: TimeInterval
    /// An answer this slow is as bad as a failure: half the timeout.
    public let dangerLatency: TimeInterval

    public private(set) var rate: Double
    public private(set) var reason: PaceReason = .starting
    /// How many cuts so far: a call made now carries it, and its answer counts only while no cut came since.
    public private(set) var generation = 0

    /// What a queue takes off the rate; an overload answer takes half. A queue is news early
    /// (see `slowQueueing`), so the cut is mild: 0.8, milder than TCP CUBIC's 0.7, where loss is news late.
    static let slowCut = 0.8

    /// The rate when it was last cut: where the backend pushed back.
    public private(set) var lastCutRate: Double?
    /// The band around `lastCutRate` probed in small steps, as fractions of it: from where a
    /// 20 % cut lands to a tenth above it.
    static let plateau = 0.8...1.1

    private var period = AnswerPeriod()
    /// The fastest answer of each of the last periods: the backend's floor is their minimum.
    private var floors: [TimeInterval] = []
    static let floorMemory = 30

    public init(ceiling: Double, floor: Double? = nil, timeout: TimeInterval) {
        self.ceiling = max(0.001, ceiling)
        self.floor = min(self.ceiling, max(0.001, floor ?? self.ceiling / 100))
        slowQueueing = min(0.5, max(0.005, timeout / 20))
        dangerLatency = max(slowQueueing, timeout / 2)
        rate = self.ceiling
    }

    /// One answer: how long it took, whether it said the backend is overloaded, and the
    /// generation its call was made in (nil: this one). An answer to a call made before the last
    /// cut still tells the backend's floor, and nothing else.
    public mutating func answered(latency: TimeInterval, overloaded: Bool, generation: Int? = nil) {
        let latency = max(0, latency)
        guard (generation ?? self.generation) == self.generation else {
            stale = min(stale ?? latency, latency)
            return
        }
        period.record(latency: latency, overloaded: overloaded)
    }

    /// The fastest stale answer of this period.
    private var stale: TimeInterval?

    /// The fastest answer lately: what the backend takes with no queue.
    public var floorLatency: TimeInterval? { floors.min() }

    /// Ends a period: the rate for the next from this one's answers and from `oldestWaiting`, how
    /// long the oldest call of this generation still unanswered has waited. Returns whether the rate changed.
    @discardableResult
    public mutating func endPeriod(oldestWaiting: TimeInterval?) -> Bool {
        let answers = period
        period = AnswerPeriod()
        if let fastest = [answers.fastest, stale].compactMap({ $0 }).min() {
            floors.append(fastest)
            if floors.count > Self.floorMemory { floors.removeFirst(floors.count - Self.floorMemory) }
        }
        stale = nil
        let p99 = answers.percentile(0.99)
        let base = floorLatency ?? 0
        let waiting = oldestWaiting ?? 0
        let before = rate
        if answers.overloaded > 0 || (p99 ?? 0) > dangerLatency {
            rate = max(floor, rate * 0.5)
            reason = .overloaded(count: answers.overloaded, p99: p99)
        } else if waiting - base > slowQueueing, waiting > (p99 ?? 0) {
            // No answer says so yet, but one is overdue: a stalled backend answers nothing at all.
            rate = max(floor, rate * Self.slowCut)
            reason = .stalled(waiting: waiting)
        } else if let p99, p99 - base > slowQueueing {
            rate = max(floor, rate * Self.slowCut)
            reason = .slow(p99: p99)
        } else if let p99 {
            if p99 - base < slowQueueing / 4 { rate = min(ceiling, rate + probe) }
            reason = .calm(p99: p99)
        }
        // A period with no answer and nothing overdue says nothing: the rate and reason stay.
        if rate < before {
            generation += 1
            lastCutRate = before
        }
        return rate != before
    }

    /// A calm period's climb: a twentieth of the ceiling, a fifth of that near the last cut.
    private var probe: Double {
        let step = ceiling / 20
        guard let lastCutRate, Self.plateau.contains(rate / lastCutRate) else { return step }
        return step / 5
    }
}
