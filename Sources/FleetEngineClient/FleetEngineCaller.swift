import FleetEngineAPI
import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TokenReading

/// The Fleet Engine calls of one group of simulated SDKs: after a token call, the call the
/// kind's real SDK makes with the token it was handed, at most once per SDK per interval, its
/// answer published as a `.fleetEngineCall` event.
public final class FleetEngineCaller: Sendable {
    public let target: FleetEngineTarget
    public let kind: ProviderKind
    private let transport: any TokenTransport
    private let events: EventBroadcaster
    private let clock: any ProviderClock
    /// The schedule's clock: the right time under a phone's wrong one, so a phone's clock
    /// moved back does not hold its calls off for as long.
    private let schedule: any ProviderClock
    /// When each SDK (by index) may call next; 8 bytes a member, as a fleet holds 100,000 of them.
    private let due: Mutex<[Double]>
    /// The run's pace for these calls, shared by both kinds' groups; nil: every due call goes.
    public let budget: CallBudget?
    /// Calls started and not yet published: a run that ends waits for them to have its last answers.
    private let started = Atomic<Int>(0)
    /// tokendash's verdict on the token sent, for `id` at a time: what Fleet Engine's answer is
    /// compared with (`TokenRules.verdict`). Passed in, so the client does not build on the rules.
    private let verdict: Verdict

    public typealias Verdict = @Sendable (_ token: String, _ kind: ProviderKind, _ id: String, _ now: Date) -> RuleLevel

    public init(
        target: FleetEngineTarget, kind: ProviderKind, count: Int, transport: any TokenTransport,
        events: EventBroadcaster, clock: any ProviderClock = SystemClock(), budget: CallBudget? = nil,
        verdict: @escaping Verdict
    ) {
        self.verdict = verdict
        self.target = target
        self.kind = kind
        self.transport = transport
        self.events = events
        self.clock = clock
        self.schedule = (clock as? DeviceClock)?.base ?? clock
        self.due = Mutex([Double](repeating: -.infinity, count: max(0, count)))
        self.budget = budget
    }

    /// The method this group's SDKs call.
    public var method: FleetEngineMethod { FleetEngineMethod.sdkCall(for: kind, writes: target.writes) }

    /// SDK `index` may call at once: its ID changed, and the SDK reports for the new one.
    public func callSoon(index: Int) {
        due.withLock { if $0.indices.contains(index) { $0[index] = -.infinity } }
    }

    /// After SDK `index`'s token call for `id`: Fleet Engine's answer to the SDK's call with
    /// `token`, if the SDK is due to call or the call is `forced` (else nil, and nothing is sent).
    @discardableResult
    public func afterTokenCall(
        index: Int, id: String, token: String, refusedByProvider: Bool = false, forced: Bool = false
    ) async -> FleetEngineAnswer? {
        guard let slot = claim(index: index, forced: forced) else { return nil }
        return await report(id: id, token: token, refusedByProvider: refusedByProvider, slot: slot)
    }

    /// The same, started rather than awaited: a slow or dead Fleet Engine must not hold up the
    /// SDK's next token call. The slot is taken before this returns, so an SDK has at most one
    /// call in flight per interval (two, when one outlives the interval by running to its timeout).
    /// `forced`: the call after a refresh the user asked for goes whatever the schedule. Making
    /// the SDK due before the refresh was not enough: an update's cache hit in between took the
    /// slot with the token held, and a refused token the refresh brought was never put to Fleet
    /// Engine (a scenario's `until: fleet_engine_refused` then waited in vain).
    public func startAfterTokenCall(
        index: Int, id: String, token: String, refusedByProvider: Bool = false, forced: Bool = false
    ) {
        guard let slot = claim(index: index, forced: forced) else { return }
        started.add(1, ordering: .relaxed)
        Task {
            _ = await report(id: id, token: token, refusedByProvider: refusedByProvider, slot: slot)
            started.subtract(1, ordering: .releasing)
        }
    }

    /// Calls started (`startAfterTokenCall`) whose answer is not yet published.
    public var callsInFlight: Int { started.load(ordering: .acquiring) }

    /// A call that may go out: the budget's ticket, if the run paces these calls.
    private struct Slot {
        var ticket: Pacer.Ticket?
    }

    /// Whether SDK `index` is due to call and the budget lets a call out now, taking its slot if
    /// so. A call the budget holds back keeps the SDK due: it goes at one of the SDK's next token
    /// calls. Half a second early still counts: an update loop's tick lands a few milliseconds
    /// either side of the interval, and a call missed by 3 ms would wait a whole update more.
    private func claim(index: Int, forced: Bool = false) -> Slot? {
        let scheduled = schedule.now().timeIntervalSince1970
        return due.withLock { due -> Slot? in
            guard due.indices.contains(index), forced || due[index] <= scheduled + 0.5 else { return nil }
            var slot = Slot()
            if let budget {
                guard let ticket = budget.take(now: clock.now()) else { return nil }
                slot.ticket = ticket
            }
            due[index] = scheduled + target.interval
            return slot
        }
    }

    private func report(id: String, token: String, refusedByProvider: Bool, slot: Slot) async -> FleetEngineAnswer {
        let answer = await call(id: id, token: token, refusedByProvider: refusedByProvider)
        if let ticket = slot.ticket { budget?.end(ticket, now: clock.now(), overloaded: answer.saysOverloaded) }
        events.publish(ProviderEvent(time: clock.now(), provider: kind, id: id, kind: .fleetEngineCall(answer)))
        return answer
    }

    /// One call, whatever the schedule: what `afterTokenCall` sends, and `decode --ask-fleet-engine`.
    public func call(id: String, token: String, refusedByProvider: Bool = false) async -> FleetEngineAnswer {
        let started = clock.now()
        let method = self.method
        let resource = method.resource(provider: target.provider, id: id)
        let fingerprint = TokenFingerprint.of(token)
        let rules = refusedByProvider ? RuleLevel.fail : verdict(token, kind, id, started)
        guard
            let request = method.request(
                base: target.base, provider: target.provider, id: id, token: token,
                location: .start, timeout: target.timeout)
        else {
            return .failed(
                .invalidURL(target.base.absoluteString), method: method, resource: resource, latency: 0,
                fingerprint: fingerprint, rules: rules, refusedByProvider: refusedByProvider)
        }
        do {
            let response = try await transport.send(request)
            return .reading(
                response, method: method, resource: resource, latency: clock.now().timeIntervalSince(started),
                fingerprint: fingerprint, rules: rules, refusedByProvider: refusedByProvider)
        } catch {
            let failure = error as? FleetAuthError ?? .other("\(error)")
            return .failed(
                failure, method: method, resource: resource, latency: clock.now().timeIntervalSince(started),
                fingerprint: fingerprint, rules: rules, refusedByProvider: refusedByProvider)
        }
    }
}
