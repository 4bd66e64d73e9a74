import FleetEngineAPI
import FleetEngineClient
import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing
import TokenJudging
import TokenReading

/// The calls a simulated SDK makes with its token, built and read without a network: the exact
/// request of each method, Google's error format read back, the verdict compared with the
/// rules', and one call per SDK per interval.
@Suite(.timeLimit(.minutes(15))) struct FleetEngineCallTests {
    static let base = URL(string: "https://fleetengine.googleapis.com/")!

    @Test func eachMethodIsTheRESTCallItsReferenceNames() throws {
        let expected: [(FleetEngineMethod, String, String)] = [
            (.updateVehicle, "PUT", "/v1/providers/my-project/vehicles/v-1?updateMask=lastLocation"),
            (.getVehicle, "GET", "/v1/providers/my-project/vehicles/v-1"),
            (.getTrip, "GET", "/v1/providers/my-project/trips/v-1"),
            (.updateDeliveryVehicle, "PATCH", "/v1/providers/my-project/deliveryVehicles/v-1?updateMask=lastLocation"),
            (.getDeliveryVehicle, "GET", "/v1/providers/my-project/deliveryVehicles/v-1"),
            (.getTaskTrackingInfo, "GET", "/v1/providers/my-project/taskTrackingInfo/v-1"),
        ]
        for (method, verb, path) in expected {
            let request = try #require(
                method.request(
                    base: Self.base, provider: "my-project", id: "v-1", token: "a.b.c",
                    location: FleetEngineLocation(latitude: 1.25, longitude: -3.5), timeout: 7))
            #expect(request.method == verb)
            #expect(request.url.absoluteString == "https://fleetengine.googleapis.com" + path)
            #expect(request.headers == [HTTPHeader(name: "Authorization", value: "Bearer a.b.c")])
            #expect(request.timeout == 7)
            let body = request.body.map { String(decoding: $0, as: UTF8.self) }
            #expect(
                body
                    == (method.isWrite
                        ? "{\"lastLocation\":{\"location\":{\"latitude\":1.25,\"longitude\":-3.5}}}" : nil))
        }
    }

    @Test func theSDKsCallReadsUnlessWritesAreAllowed() {
        #expect(FleetEngineMethod.sdkCall(for: .driver, writes: true) == .updateVehicle)
        #expect(FleetEngineMethod.sdkCall(for: .driver, writes: false) == .getVehicle)
        #expect(FleetEngineMethod.sdkCall(for: .deliveryDriver, writes: true) == .updateDeliveryVehicle)
        #expect(FleetEngineMethod.sdkCall(for: .deliveryDriver, writes: false) == .getDeliveryVehicle)
        #expect(FleetEngineMethod.sdkCall(for: .consumer, writes: true) == .getTrip)
        #expect(FleetEngineMethod.sdkCall(for: .deliveryConsumer, writes: true) == .getTaskTrackingInfo)
    }

    static func answer(_ status: Int, _ body: String, rules: RuleLevel = .ok) -> FleetEngineAnswer {
        FleetEngineAnswer.reading(
            TransportResponse(status: status, body: Data(body.utf8)), method: .updateVehicle,
            resource: "providers/p/vehicles/v", latency: 0.01, fingerprint: "abcd1234", rules: rules)
    }

    @Test func googlesErrorFormatIsReadAndAForeignBodyIsKeptInWords() {
        let denied = Self.answer(
            403, #"{"error":{"code":403,"message":"no access to v","status":"PERMISSION_DENIED"}}"#)
        #expect(denied.status == "PERMISSION_DENIED" && denied.message == "no access to v")
        #expect(denied.summary == "UpdateVehicle 403 PERMISSION_DENIED: no access to v")
        let proxy = Self.answer(502, "<html>bad gateway</html>\n")
        #expect(proxy.status == "INTERNAL" && proxy.message == "<html>bad gateway</html>")
        #expect(Self.answer(200, "{}").status == "OK")
        // A token quoted back in a message is redacted, as every error text is.
        let jwt = TestJWT.make(kind: .driver, id: "v", lifetime: 600)
        let quoted = Self.answer(
            401, #"{"error":{"code":401,"message":"bad token \#(jwt)","status":"UNAUTHENTICATED"}}"#)
        #expect(!quoted.message.contains(jwt))
    }

    @Test func aRefusalOfATokenTheRulesPassedIsADisagreementAndSoIsTheReverse() {
        #expect(Self.answer(403, "{}", rules: .ok).verdictDisagrees)
        #expect(Self.answer(401, "{}", rules: .warn).verdictDisagrees)
        #expect(!Self.answer(403, "{}", rules: .fail).verdictDisagrees)
        #expect(Self.answer(200, "{}", rules: .fail).verdictDisagrees)
        // A missing resource is past authentication: the token was accepted.
        #expect(Self.answer(404, "{}", rules: .fail).verdictDisagrees)
        // An outage says nothing about the token.
        #expect(!Self.answer(503, "{}", rules: .ok).verdictDisagrees)
        #expect(!Self.answer(503, "{}", rules: .fail).verdictDisagrees)
    }

    /// The IDs Fleet Engine calls were sent for, in order.
    final class SentCalls: Sendable {
        // Guards the IDs, appended by the fake transport.
        private let ids = Mutex<[String]>([])
        func add(_ id: String) { ids.withLock { $0.append(id) } }
        var all: [String] { ids.withLock { $0 } }
    }

    /// `count` SDKs calling every 10 s on a manual clock, the calls sent, and a token.
    static func scheduled(count: Int) -> (FleetEngineCaller, ManualClock, SentCalls, String) {
        let clock = ManualClock()
        let sent = SentCalls()
        let transport = FakeTransport { request in
            sent.add(request.url.lastPathComponent)
            return TransportResponse(status: 200, body: Data("{}".utf8))
        }
        let target = FleetEngineTarget(base: Self.base, provider: "my-project", writes: true, interval: 10)
        let caller = FleetEngineCaller(
            target: target, kind: .driver, count: count, transport: transport, events: EventBroadcaster(), clock: clock,
            verdict: TokenRules.verdict)
        let now = Int(clock.now().timeIntervalSince1970)
        return (caller, clock, sent, TestJWT.make(kind: .driver, id: "v-1", iat: now, exp: now + 3600))
    }

    @Test func oneSDKCallsAtMostOncePerIntervalAndAtOnceAfterASwitch() async throws {
        let (caller, clock, sent, token) = Self.scheduled(count: 2)
        #expect(await caller.afterTokenCall(index: 0, id: "v-1", token: token)?.status == "OK")
        clock.advance(by: 5)
        #expect(await caller.afterTokenCall(index: 0, id: "v-1", token: token) == nil)
        // Another SDK has its own schedule.
        #expect(await caller.afterTokenCall(index: 1, id: "v-2", token: token) != nil)
        clock.advance(by: 5)
        #expect(await caller.afterTokenCall(index: 0, id: "v-1", token: token) != nil)
        caller.callSoon(index: 0)
        #expect(await caller.afterTokenCall(index: 0, id: "v-3", token: token) != nil)
        #expect(await caller.afterTokenCall(index: 7, id: "v-9", token: token) == nil)
        #expect(sent.all == ["v-1", "v-2", "v-1", "v-3"])
    }

    /// A refresh the user asked for calls Fleet Engine with what it brought, even when an
    /// update's call took the interval's slot a moment before; the schedule goes on from it.
    @Test func aForcedCallGoesWhateverTheScheduleAndTheScheduleFollowsIt() async throws {
        let (caller, clock, sent, token) = Self.scheduled(count: 1)
        #expect(await caller.afterTokenCall(index: 0, id: "v-1", token: token) != nil)
        clock.advance(by: 1)
        #expect(await caller.afterTokenCall(index: 0, id: "v-held", token: token) == nil)
        #expect(await caller.afterTokenCall(index: 0, id: "v-refreshed", token: token, forced: true) != nil)
        clock.advance(by: 9)
        #expect(
            await caller.afterTokenCall(index: 0, id: "v-early", token: token) == nil,
            "10 s after the forced call, not the first")
        clock.advance(by: 1)
        #expect(await caller.afterTokenCall(index: 0, id: "v-due", token: token) != nil)
        #expect(sent.all == ["v-1", "v-refreshed", "v-due"])
    }

    @Test func aLargeFleetCallsLessOftenEachSoTheRunStaysWithinAThousandCallsASecond() {
        #expect(FleetEngineTarget.interval(for: 2, asked: 10) == 10)
        #expect(FleetEngineTarget.interval(for: 10_000, asked: 10) == 10)
        #expect(FleetEngineTarget.interval(for: 20_000, asked: 10) == 20)
        #expect(FleetEngineTarget.interval(for: 100_000, asked: 10) == 100)
        #expect(FleetEngineTarget.interval(for: 100_000, asked: 300) == 300)
    }

    @Test func theAnswerCarriesTheRulesVerdictOnTheTokenUsed() async throws {
        let clock = ManualClock()
        let transport = FakeTransport { _ in TransportResponse(status: 200, body: Data("{}".utf8)) }
        let target = FleetEngineTarget(base: Self.base, provider: "my-project", writes: true)
        let caller = FleetEngineCaller(
            target: target, kind: .driver, count: 1, transport: transport, events: EventBroadcaster(), clock: clock,
            verdict: TokenRules.verdict)
        let now = Int(clock.now().timeIntervalSince1970)
        let wrong = TestJWT.make(kind: .driver, id: "not-v-1", iat: now, exp: now + 3600)
        let answer = await caller.call(id: "v-1", token: wrong)
        #expect(answer.rules == .fail)
        #expect(answer.verdictDisagrees)
        #expect(answer.fingerprint == TokenFingerprint.of(wrong))
        #expect(
            answer.disagreement
                == "tokendash's rules failed this token and Fleet Engine accepted it: a rules bug or a backend bug")
    }

    /// Fleet Engine answering 503: the run's budget halves each second it does, so 100 SDKs due
    /// at once send fewer calls, and a held-back SDK stays due and calls at a later token call.
    @Test func overloadedAnswersShrinkTheBudgetAndHeldCallsWaitTheirTurn() async throws {
        let clock = ManualClock()
        let unavailable = #"{"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}"#
        let transport = FakeTransport { _ in TransportResponse(status: 503, body: Data(unavailable.utf8)) }
        let target = FleetEngineTarget(base: Self.base, provider: "my-project", writes: true, interval: 10)
        let budget = CallBudget(ceiling: 40, timeout: 10)
        let caller = FleetEngineCaller(
            target: target, kind: .driver, count: 100, transport: transport, events: EventBroadcaster(),
            clock: clock, budget: budget, verdict: TokenRules.verdict)
        let token = TestJWT.make(kind: .driver, id: "v-1", lifetime: 600)
        func round() async -> Int {
            var sent = 0
            for index in 0..<100 where await caller.afterTokenCall(index: index, id: "v-\(index)", token: token) != nil
            { sent += 1 }
            return sent
        }
        #expect(await round() == 40, "a second's worth of the ceiling at once")
        #expect(budget.status.rate == 40, "no period has ended yet")
        clock.advance(by: 1)
        #expect(await round() == 20, "503s: half the rate, and a second of it")
        #expect(budget.status.rate == 20)
        #expect(budget.status.reason == .overloaded(count: 40, p99: 0))
        clock.advance(by: 1)
        #expect(await round() == 10)
        #expect(transport.count == 70, "the other 30 SDKs are still due")
    }
}
