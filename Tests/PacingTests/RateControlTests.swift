import Foundation
import Testing

@testable import Pacing

/// The rate control fed made-up answers, period by period: what a ramp or a budget would do
/// against a backend that answers so.
@Suite(.timeLimit(.minutes(15))) struct RateControlTests {
    /// `n` answers of `latency`, then the period's end.
    func period(
        _ control: inout RateControl, answers n: Int, latency: TimeInterval, overloaded: Int = 0,
        oldestWaiting: TimeInterval? = nil
    ) {
        for i in 0..<n { control.answered(latency: latency, overloaded: i < overloaded) }
        control.endPeriod(oldestWaiting: oldestWaiting)
    }

    @Test func fastAnswersKeepTheCeiling() {
        var control = RateControl(ceiling: 1000, timeout: 10)
        for _ in 0..<5 { period(&control, answers: 1000, latency: 0.004) }
        #expect(control.rate == 1000)
        #expect(control.reason == .calm(p99: 0.004))
        #expect(control.reason.describe() == "backend p99 4 ms")
    }

    @Test func anOverloadedAnswerHalvesTheRate() {
        var control = RateControl(ceiling: 1000, timeout: 10)
        period(&control, answers: 500, latency: 0.01, overloaded: 3)
        #expect(control.rate == 500)
        #expect(control.reason == .overloaded(count: 3, p99: 0.01))
        period(&control, answers: 500, latency: 0.01, overloaded: 1)
        #expect(control.rate == 250)
    }

    /// After a cut, the calls already queued answer slowly for a while: they do not cut again.
    /// Answers to calls made since do.
    @Test func oneCutPerRoundTrip() {
        var control = RateControl(ceiling: 1000, timeout: 10)
        period(&control, answers: 100, latency: 0.005)
        period(&control, answers: 100, latency: 2)
        #expect(control.rate == 800)
        #expect(control.generation == 1)
        for _ in 0..<3 {
            for _ in 0..<100 { control.answered(latency: 3, overloaded: true, generation: 0) }
            control.endPeriod(oldestWaiting: nil)
        }
        #expect(control.rate == 800, "the queue from before the cut, draining")
        period(&control, answers: 100, latency: 2)
        #expect(abs(control.rate - 640) < 1e-9, "calls made since the cut, still slow: \(control.rate)")
    }

    /// Answers queueing 2 s on top of a 5 ms floor: 20 % less each period, down to the floor of
    /// 1 % of the ceiling. Once the 5 ms answer is 30 periods old, 2 s is the backend's own floor,
    /// and no longer a queue: the rate climbs again.
    @Test func queueingSlowsTheRateDownToItsFloor() {
        var control = RateControl(ceiling: 1000, timeout: 10)
        period(&control, answers: 100, latency: 0.005)
        period(&control, answers: 100, latency: 2)
        #expect(control.rate == 800)
        #expect(control.reason == .slow(p99: 2))
        #expect(control.reason.describe() == "backend p99 2.0 s, slowing")
        for _ in 0..<20 { period(&control, answers: 100, latency: 2) }
        #expect(control.rate == 10, "the floor: a backend that is down is still asked, slowly")
        for _ in 0..<10 { period(&control, answers: 100, latency: 2) }
        #expect(control.floorLatency == 2)
        #expect(control.rate > 10, "climbing back: \(control.rate)")
    }

    /// A backend 200 ms away with no queue is calm: the floor latency is not congestion.
    @Test func aDistantBackendIsNotASlowOne() {
        var control = RateControl(ceiling: 1000, timeout: 10)
        for _ in 0..<5 { period(&control, answers: 1000, latency: 0.2) }
        #expect(control.rate == 1000)
        #expect(control.reason == .calm(p99: 0.2))
    }

    /// Answers past half the timeout are as bad as timeouts: they are about to become them.
    @Test func answersNearTheTimeoutCountAsOverload() {
        var control = RateControl(ceiling: 1000, timeout: 10)
        period(&control, answers: 10, latency: 6)
        #expect(control.rate == 500)
    }

    /// No answer at all while a call has waited 3 s: the stall slows the rate before any timeout.
    @Test func aStallSlowsTheRateBeforeAnyAnswer() {
        var control = RateControl(ceiling: 1000, timeout: 10)
        period(&control, answers: 100, latency: 0.005)
        control.endPeriod(oldestWaiting: 3)
        #expect(control.rate == 800)
        #expect(control.reason == .stalled(waiting: 3))
        control.endPeriod(oldestWaiting: nil)
        #expect(control.rate == 800, "a period that says nothing changes nothing")
    }

    /// After a slowdown, fast answers bring it back by a twentieth of the ceiling a period, and
    /// by a fifth of that near the rate of the last cut (400-550 after a cut at 500).
    @Test func fastAnswersClimbBackAdditively() {
        var control = RateControl(ceiling: 1000, timeout: 10)
        period(&control, answers: 100, latency: 0.005, overloaded: 1)
        period(&control, answers: 100, latency: 0.005, overloaded: 1)
        #expect(control.rate == 250)
        #expect(control.lastCutRate == 500)
        period(&control, answers: 100, latency: 0.005)
        #expect(control.rate == 300)
        period(&control, answers: 100, latency: 0.005)
        period(&control, answers: 100, latency: 0.005)
        #expect(control.rate == 400)
        period(&control, answers: 100, latency: 0.005)
        #expect(control.rate == 410, "near the last cut: small steps")
        for _ in 0..<14 { period(&control, answers: 100, latency: 0.005) }
        #expect(abs(control.rate - 550) < 1e-9, "\(control.rate)")
        period(&control, answers: 100, latency: 0.005)
        #expect(abs(control.rate - 560) < 1e-9, "the band's last step: \(control.rate)")
        period(&control, answers: 100, latency: 0.005)
        #expect(abs(control.rate - 610) < 1e-9, "past the band, full steps again: \(control.rate)")
        for _ in 0..<20 { period(&control, answers: 100, latency: 0.005) }
        #expect(control.rate == 1000, "never past the ceiling")
    }

    /// A backend whose limit is the rate of the last cut: the climb back reaches it in small steps,
    /// so the saw of cut-and-climb is shallower and slower than with full steps.
    @Test func theClimbFlattensNearTheLastCut() {
        var control = RateControl(ceiling: 1000, timeout: 10)
        period(&control, answers: 100, latency: 0.005)
        period(&control, answers: 100, latency: 2)
        #expect(control.rate == 800)
        #expect(control.lastCutRate == 1000)
        for _ in 0..<10 { period(&control, answers: 100, latency: 0.005) }
        #expect(abs(control.rate - 900) < 1e-9, "10 periods at a fifth of a full step: \(control.rate)")
    }

    /// Between calm and slow, the rate holds: it neither climbs into a queue nor drops.
    @Test func someQueueingHoldsTheRate() {
        var control = RateControl(ceiling: 1000, timeout: 10)
        period(&control, answers: 100, latency: 0.005, overloaded: 1)
        period(&control, answers: 100, latency: 0.15)
        #expect(control.rate == 500)
    }

    /// A short timeout judges latency by its own scale: 1 s calls queue 50 ms at most.
    @Test func theSlowThresholdFollowsTheTimeout() {
        var control = RateControl(ceiling: 100, timeout: 1)
        period(&control, answers: 100, latency: 0.001)
        period(&control, answers: 100, latency: 0.1)
        #expect(control.rate == 80)
    }

    /// A period of 100,000 answers keeps 2,048 samples at most, and its p99 is still the whole period's.
    @Test func aLargePeriodIsSampled() {
        var answers = AnswerPeriod()
        // Latencies spread evenly over 0-1 s, in an order that no stride aliases.
        for i in 0..<100_000 { answers.record(latency: Double((i * 7919) % 1000) / 1000, overloaded: false) }
        #expect(answers.latencies.count < AnswerPeriod.sampleLimit)
        #expect(answers.answered == 100_000)
        let p99 = try? #require(answers.percentile(0.99))
        #expect(abs((p99 ?? 0) - 0.99) < 0.02, "\(p99 ?? -1)")
    }
}
