import Foundation
import Testing

@testable import Pacing

/// The shared pacer with made-up times: its window of calls in flight and its token bucket.
@Suite(.timeLimit(.minutes(15))) struct PacerTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A backend that stops answering: the window stops new calls after its first 16, long before
    /// the first timeout, and the stall then slows the rate, and the window with it.
    @Test func aStalledBackendClosesTheWindow() {
        let pacer = Pacer(RateControl(ceiling: 100, timeout: 10))
        #expect(pacer.room(now: t0) == 16, "TCP's way: a small first window")
        for _ in 0..<16 { _ = pacer.begin(now: t0) }
        #expect(pacer.room(now: t0) == 0)
        #expect(pacer.room(now: t0 + 3) == 0)
        #expect(pacer.status.rate == 80)
        #expect(pacer.status.reason == .stalled(waiting: 3))
        #expect(pacer.status.inFlight == 16)
    }

    /// Calm answers widen the window by one each (doubling per round trip), up to 2 s of the
    /// ceiling's calls on top of the backend's floor; each frees its place as it comes.
    @Test func calmAnswersWidenTheWindow() {
        let pacer = Pacer(RateControl(ceiling: 100, timeout: 10))
        var now = t0
        for round in 0..<5 {
            let tickets = (0..<pacer.room(now: now)).map { _ in pacer.begin(now: now) }
            now += 0.5
            for ticket in tickets { pacer.end(ticket, now: now, overloaded: false) }
            #expect(pacer.room(now: now) == min(250, 16 << (round + 1)), "round \(round)")
        }
        #expect(pacer.status.reason == .calm(p99: 0.5))
        #expect(pacer.status.inFlight == 0)
        #expect(pacer.status.rate == 100, "at the ceiling: 250 calls out over 0.5 s would be 500 a second")
    }

    /// Slow answers leave the window as it is, and a cut shrinks it with the rate: a backend 200 ms
    /// away that answers 40 calls a second holds the ramp near 40 a second, not its 1,000.
    @Test func aSlowBackendHoldsTheWindowAndTheRateFollows() {
        let pacer = Pacer(RateControl(ceiling: 1000, timeout: 10))
        var now = t0
        // Each round the window's calls; the backend takes 0.2 s for 8 of them, queueing the rest.
        for _ in 0..<20 {
            let tickets = (0..<pacer.room(now: now)).map { _ in pacer.begin(now: now) }
            for (i, ticket) in tickets.enumerated() {
                pacer.end(ticket, now: now + 0.2 * Double(i / 8 + 1), overloaded: false)
            }
            now += 0.2 * Double((tickets.count + 7) / 8)
        }
        let status = pacer.status
        #expect(status.rate < 100, "\(status.summary())")
        #expect(status.rate >= 20, "\(status.summary())")
    }

    /// A ticket ended twice counts once.
    @Test func aTicketEndsOnce() {
        let pacer = Pacer(RateControl(ceiling: 100, timeout: 10))
        let ticket = pacer.begin(now: t0)
        pacer.end(ticket, now: t0 + 0.5, overloaded: true)
        pacer.end(ticket, now: t0 + 0.5, overloaded: true)
        _ = pacer.room(now: t0 + 1)
        #expect(pacer.status.reason == .overloaded(count: 1, p99: 0.5))
    }

    /// The bucket lets out the rate's calls a second after a first second's worth, at most a second's worth at once.
    @Test func theBucketKeepsTheRate() {
        let pacer = Pacer(RateControl(ceiling: 10, timeout: 10), windowSeconds: 100)
        var taken = 0
        // 100 asks a second for 10 s.
        for step in 0..<1000 {
            if let ticket = pacer.take(now: t0 + Double(step) / 100) {
                taken += 1
                pacer.end(ticket, now: t0 + Double(step) / 100, overloaded: false)
            }
        }
        #expect(taken >= 109 && taken <= 111, "10 at once, then 10 a second for 10 s: \(taken)")
        // A quiet minute gathers one second's calls, not sixty.
        var burst = 0
        while pacer.take(now: t0 + 70) != nil { burst += 1 }
        #expect(burst == 10)
    }

    /// Budgets give way to a ramp that backs off: half the ramp's rate leaves a quarter of theirs.
    @Test func aBudgetGivesWayToABackedOffRamp() {
        let ramp = Pacer(RateControl(ceiling: 1000, timeout: 10))
        let budget = CallBudget(ceiling: 1000, timeout: 10, givingWayTo: ramp)
        #expect(budget.share == 1, "no ramp running")
        ramp.laneStarted()
        #expect(budget.share == 1, "a ramp at its ceiling")
        let ticket = ramp.begin(now: t0)
        ramp.end(ticket, now: t0 + 0.01, overloaded: true)
        _ = ramp.room(now: t0 + 1)
        #expect(ramp.status.rate == 500)
        #expect(budget.share == 0.25)
        #expect(budget.status.rate == 250)
        #expect(budget.status.reason == .givingWay)
        ramp.laneEnded()
        #expect(budget.share == 1, "the ramp is over")
    }
}

/// What `watch` says of a pace, and when it says it again.
@Suite(.timeLimit(.minutes(15))) struct PaceAnnouncerTests {
    func status(_ rate: Double, _ reason: PaceReason) -> Pacer.Status {
        Pacer.Status(rate: rate, ceiling: 1000, floor: 10, reason: reason, inFlight: 0, active: true)
    }

    @Test func theRateAndWhyInAFewWords() {
        #expect(status(420, .slow(p99: 2.1)).summary() == "420/s (backend p99 2.1 s, slowing)")
        #expect(status(1000, .calm(p99: 0.004)).summary() == "1000/s (backend p99 4 ms)")
        #expect(
            status(2.5, .stalled(waiting: 3)).summary("emulator")
                == "2.5/s (a call to the emulator unanswered for 3.0 s)")
        #expect(
            status(500, .overloaded(count: 3, p99: nil)).summary()
                == "500/s (3 overloaded answers (timeouts, 429, 5xx))")
    }

    @Test func saidAgainOnlyWhenItChanges() {
        var announcer = PaceAnnouncer()
        func news(_ status: Pacer.Status) -> Bool { announcer.isNews(status) }
        #expect(news(status(1000, .starting)))
        #expect(news(status(1000, .calm(p99: 0.004))), "a new kind of reason")
        #expect(!news(status(1000, .calm(p99: 0.008))), "the same, a new p99")
        #expect(!news(status(800, .calm(p99: 0.004))), "within a quarter")
        #expect(news(status(700, .slow(p99: 2))))
        #expect(!news(status(560, .slow(p99: 2.5))))
        #expect(news(status(490, .slow(p99: 2.5))), "30 % down since last said")
    }
}
