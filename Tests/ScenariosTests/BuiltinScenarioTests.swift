import FleetEngineAPI
import Foundation
import ProviderEvents
import ProviderVocabulary
import Scenarios
import TestSupport
import Testing

/// Each built-in scenario, run to its end against the embedded server and real providers under
/// the driven clock, shows what its ending says it showed.
@Suite(.serialized, .timeLimit(.minutes(15))) struct BuiltinScenarioTests {
    @Test func everyBuiltinParsesAndSaysWhatItShowed() throws {
        #expect(
            ScenarioCatalog.builtins.map(\.name) == [
                "refresh-ahead", "id-switch", "backend-outage", "clock-skew", "wrong-id", "rate-limited",
                "revoked-key", "skewed-phone", "sample-race",
            ])
        for (name, yaml) in BuiltinScenarios.sources {
            let scenario = try ScenarioParser.parse(yaml, file: name)
            #expect(scenario.ending.hasPrefix("Shown:"), "\(name)")
            #expect(!scenario.description.isEmpty)
        }
    }

    func expectFinished(_ run: ScenarioRun) {
        #expect(run.final.isFinished, "ended as \(run.final.status)")
        #expect(run.timeouts.isEmpty, "\(run.timeouts)")
        #expect(run.final.step == run.final.count)
    }

    @Test func refreshAheadReplacesTheTokenBeforeItExpiresWhileServingTheOld() async throws {
        let run = try await ScenarioRun.run("refresh-ahead")
        expectFinished(run)
        let events = run.events(.consumer)
        let start = try #require(events.firstIndex { $0.fetchReason == .refreshAhead })
        let old = try #require(events[..<start].last { $0.isFetched }?.token)
        #expect(events[start].time < old.expiresAt)
        let next = try #require(events[start...].firstIndex { $0.isFetched })
        let new = try #require(events[next].token)
        // The successor came before the old token expired, and is a different token.
        #expect(events[next].time < old.expiresAt)
        #expect(new.fingerprint != old.fingerprint)
        // Meanwhile calls were answered from the cache with the old token.
        #expect(
            events[start..<next].contains {
                if case .cacheHit(_, let expiresAt) = $0.kind { expiresAt == old.expiresAt } else { false }
            })
        #expect(!events.contains { if case .expired = $0.kind { true } else { false } })
    }

    @Test func idSwitchDropsTheCacheAndDiscardsTheLateAnswer() async throws {
        let run = try await ScenarioRun.run("id-switch")
        expectFinished(run)
        let events = run.events(.consumer)
        let switched = try #require(events.firstIndex { $0.kind == .idChanged(from: "trip-0001", to: "trip-0002") })
        let after = events[switched...]
        #expect(after.contains { if case .cacheDropped = $0.kind { $0.id == "trip-0001" } else { false } })
        #expect(
            after.contains {
                if case .superseded(requested: "trip-0001", current: "trip-0002")? = $0.failure { true } else { false }
            })
        // Nothing for the old trip was cached after the switch; the new trip got its own token.
        #expect(!after.contains { $0.isFetched && $0.id == "trip-0001" })
        #expect(after.contains { $0.isFetched && $0.token?.id == "trip-0002" })
    }

    @Test func backendOutageBacksOffKeepsTheValidTokenAndRecovers() async throws {
        let run = try await ScenarioRun.run("backend-outage")
        expectFinished(run)
        let events = run.events(.driver)
        let firstFailure = try #require(
            events.firstIndex { if case .httpStatus(500, _, _)? = $0.failure { true } else { false } })
        let held = try #require(events[..<firstFailure].last { $0.isFetched }?.token)
        let expired = try #require(events.firstIndex { $0.kind == .expired(at: held.expiresAt) })
        let outage = events[firstFailure..<expired]
        // Failures, each followed by a backoff, the attempts counted.
        let attempts = outage.compactMap { if case .backingOff(_, let attempt) = $0.kind { attempt } else { nil } }
        #expect(attempts.count >= 2 && attempts == Array(1...attempts.count), "\(attempts)")
        // The valid token kept being served, and nothing replaced it, until it expired.
        #expect(
            outage.contains {
                if case .cacheHit(_, let expiresAt) = $0.kind { expiresAt == held.expiresAt } else { false }
            })
        #expect(!outage.contains { $0.isFetched })
        // No request went out before the backoff allowed it.
        var allowedAt = Date.distantPast
        for event in events[firstFailure...] {
            if case .backingOff(let until, _) = event.kind { allowedAt = until }
            if event.fetchReason != nil {
                #expect(
                    event.time >= allowedAt.addingTimeInterval(-0.001),
                    "\(event.name) at \(event.time) before \(allowedAt)")
            }
        }
        // Recovery: a token again after the backend came back.
        #expect(events[expired...].contains { $0.isFetched })
    }

    @Test func clockSkewWarnsThenRefusesThenRecovers() async throws {
        let run = try await ScenarioRun.run("clock-skew")
        expectFinished(run)
        let events = run.events(.consumer)
        let ahead = try #require(events.first { ($0.token?.clockSkew ?? 0) < -100 }?.token)
        // This machine's clock minus the backend's: 2 minutes behind it.
        #expect(abs((ahead.clockSkew ?? 0) + 120) < 2)
        #expect(ahead.findings.contains { $0.rule == .clock && $0.level == .warn })
        let refused = try #require(
            events.firstIndex {
                if case .rejected(let results)? = $0.failure {
                    results.contains { $0.rule == .issuedAt && $0.level == .fail }
                } else {
                    false
                }
            })
        let recovered = try #require(events[refused...].first { $0.isFetched }?.token)
        #expect(abs(recovered.clockSkew ?? 99) < 2)
    }

    @Test func wrongIDIsRefusedAndTheValidTokenKept() async throws {
        let run = try await ScenarioRun.run("wrong-id")
        expectFinished(run)
        let events = run.events(.driver)
        let refused = try #require(
            events.firstIndex {
                $0.failure == .wrongID(claim: "vehicleid", expected: "vehicle-0001", found: "not-vehicle-0001")
            })
        let held = try #require(events[..<refused].last { $0.isFetched }?.token)
        let next = try #require(events[refused...].firstIndex { $0.isFetched })
        // Until the backend was fixed, the token in use was the one held before.
        #expect(
            events[refused..<next].allSatisfy {
                if case .cacheHit(_, let at) = $0.kind { at == held.expiresAt } else { true }
            })
        // Accepted only because its claim names this vehicle: the rules refuse any other.
        #expect(events[next].token?.id == "vehicle-0001")
    }

    @Test func rateLimitedHonoursRetryAfter() async throws {
        let run = try await ScenarioRun.run("rate-limited")
        expectFinished(run)
        let events = run.events(.consumer)
        let limited = try #require(
            events.firstIndex { if case .httpStatus(429, _, 30)? = $0.failure { true } else { false } })
        let backoff = try #require(events[limited...].first { if case .backingOff = $0.kind { true } else { false } })
        guard case .backingOff(let until, _) = backoff.kind else { return }
        #expect(until.timeIntervalSince(backoff.time) >= 29.9)
        // No request before the backend's Retry-After, then a token.
        let nextStart = try #require(events[limited...].firstIndex { $0.fetchReason != nil })
        #expect(events[nextStart].time >= until.addingTimeInterval(-0.001))
        #expect(events[nextStart...].contains { $0.isFetched })
    }
}

/// The scenarios about tokens in use: Fleet Engine's answers, and where they contradict the rules.
@Suite(.serialized, .timeLimit(.minutes(15))) struct FleetEngineScenarioTests {
    func answers(_ run: ScenarioRun) -> [FleetEngineAnswer] {
        run.events(.driver).compactMap { if case .fleetEngineCall(let answer) = $0.kind { answer } else { nil } }
    }

    @Test func revokedKeyIsRefusedByFleetEngineWhileEveryRulePasses() async throws {
        let run = try await ScenarioRun.run("revoked-key")
        #expect(run.final.isFinished && run.timeouts.isEmpty, "\(run.timeouts)")
        let refused = try #require(answers(run).first { $0.tokenVerdict == .refused })
        #expect(refused.status == "UNAUTHENTICATED" && refused.verdictDisagrees && !refused.refusedByProvider)
        // No fetch failed: the provider had nothing against the token.
        #expect(!run.events(.driver).contains { $0.failure?.isTokenRejection == true })
        #expect(answers(run).last?.succeeded == true)
    }

    @Test func aSkewedPhoneRefusesWhatFleetEngineAccepts() async throws {
        let run = try await ScenarioRun.run("skewed-phone")
        #expect(run.final.isFinished && run.timeouts.isEmpty, "\(run.timeouts)")
        let disagreement = try #require(answers(run).first { $0.verdictDisagrees })
        #expect(disagreement.succeeded && disagreement.refusedByProvider && disagreement.rules == .fail)
        let rejection = try #require(run.events(.driver).compactMap(\.failure).first { $0.isTokenRejection })
        #expect(rejection.description.contains("in the future"), "\(rejection)")
    }

    @Test func wrongIDIsRefusedByTheRulesAndByFleetEngineAlike() async throws {
        let run = try await ScenarioRun.run("wrong-id")
        #expect(run.final.isFinished && run.timeouts.isEmpty, "\(run.timeouts)")
        let refused = try #require(answers(run).first { $0.tokenVerdict == .refused })
        #expect(refused.status == "PERMISSION_DENIED" && refused.refusedByProvider && !refused.verdictDisagrees)
    }
}

/// sample-race with each logic: the Objective-C sample serves the old vehicle's token for the new
/// one and Fleet Engine refuses it; tokendash's core never does.
@Suite(.serialized, .timeLimit(.minutes(15))) struct SampleRaceTests {
    static func refusals(_ run: ScenarioRun) -> [ProviderEvent] {
        run.events(.driver).filter {
            if case .fleetEngineCall(let answer) = $0.kind { answer.tokenVerdict == .refused } else { false }
        }
    }

    @Test func theObjCSampleSendsTheOldVehiclesTokenAndIsRefused() async throws {
        let run = try await ScenarioRun.run("sample-race", logic: .objcSample)
        #expect(run.final.isFinished && run.timeouts.isEmpty, "\(run.timeouts)")
        let refused = try #require(Self.refusals(run).first, "\(run.events(.driver).map { "\($0.name) \($0.id)" })")
        guard case .fleetEngineCall(let answer) = refused.kind else { return }
        #expect(refused.id == "vehicle-0002")
        #expect(answer.status == "PERMISSION_DENIED")
        #expect(answer.message.contains("authorization.vehicleid is \"vehicle-0001\""), "\(answer.message)")
    }

    @Test func tokendashsCoreDiscardsTheLateAnswerAndIsNeverRefused() async throws {
        let run = try await ScenarioRun.run("sample-race", logic: .tokendash)
        #expect(run.final.isFinished && run.timeouts.isEmpty, "\(run.timeouts)")
        #expect(Self.refusals(run).isEmpty)
        #expect(run.events(.driver).contains { if case .superseded? = $0.failure { true } else { false } })
        // The new vehicle was reported to Fleet Engine, and accepted.
        #expect(
            run.events(.driver).contains {
                if case .fleetEngineCall(let a) = $0.kind { $0.id == "vehicle-0002" && a.succeeded } else { false }
            })
    }
}
