import Foundation
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing
import TokenJudging
import TokenReading

/// The shared test helpers do what the tests built on them assume.
@Suite(.timeLimit(.minutes(15))) struct TestSupportTests {
    @Test(arguments: ProviderKind.allCases)
    func theDefaultTokenPassesEveryRule(kind: ProviderKind) throws {
        let t = TestTime.seconds
        let jwt = try JWTInspector.decode(TestJWT.make(kind: kind, id: "id-1", iat: t, exp: t + 3600))
        let results = TokenRules.evaluate(jwt, kind: kind, id: "id-1", now: TestTime.t0, providerID: "my-project")
        #expect(results.allSatisfy { $0.level == .ok }, "\(results)")
        #expect(jwt.header["kid"] == .string(TestJWT.kid))
        #expect(jwt.claims["iat"] == .int(Int64(t)))
        #expect(jwt.claims["authorization"] == .object([kind.claimName: .string("id-1")]))
    }

    @Test func overridesReplaceOrRemoveSingleFields() throws {
        let token = TestJWT.make(
            iat: 10, exp: 20, header: ["alg": "HS256", "kid": nil],
            claims: ["iat": 10.5, "aud": ["a", "b"], "authorization": nil, "extra": true])
        let jwt = try JWTInspector.decode(token)
        #expect(jwt.header == .object(["alg": .string("HS256"), "typ": .string("JWT")]))
        #expect(jwt.claims["iat"] == .double(10.5))
        #expect(jwt.claims["exp"] == .int(20))
        #expect(jwt.claims["aud"] == .array([.string("a"), .string("b")]))
        #expect(jwt.claims["authorization"] == nil)
        #expect(jwt.claims["extra"] == .bool(true))
        #expect(token.hasSuffix(".\(TestJWT.signature)"))
        #expect(TestJWT.make(iat: 10, exp: 20) == TestJWT.make(iat: 10, exp: 20), "byte-identical between calls")
    }

    @Test func aRecorderWhoseWaitIsCancelledThrowsWhatItSaw() async throws {
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        events.publish(
            ProviderEvent(time: TestTime.t0, provider: .consumer, id: "trip-1", kind: .fetchStarted(reason: .noToken)))
        let found = try await recorder.next(named: "fetch_started")
        #expect(found.fetchReason == .noToken)
        events.publish(ProviderEvent(time: TestTime.t0, provider: .driver, id: "v-1", kind: .forcedRefresh))
        // As the suite's time limit does: the waiting task is cancelled once it has seen the event.
        let waiting = Task { try await recorder.next(named: "fetched") }
        _ = await eventually { recorder.all.count == 2 }
        waiting.cancel()
        do {
            _ = try await waiting.cancellingValue
            Issue.record("a wait for an event never published returned")
        } catch let notSeen as EventRecorder.NotSeen {
            #expect(
                notSeen.description
                    == "no fetched event; seen: fetch_started consumer trip-1, forced_refresh driver v-1")
        }
    }
}
