import DashboardRuntime
import Foundation
import ProviderEvents
import ProviderVocabulary
import Recording
import RecordingFormat
import Scenarios
import Testing

/// A scenario's `until:` waits on typed events, and matches a replayed event as it matched the
/// live one: a recording keeps what kind of failure it was, not only its sentence.
@Suite(.timeLimit(.minutes(15))) struct ReplayedConditionTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func failure(_ error: FleetAuthError) -> ProviderEvent {
        ProviderEvent(time: t0, provider: .driver, id: "vehicle-1", kind: .fetchFailed(error, latency: 0.1))
    }

    /// Through the recording's JSON and back, as a replay reads it.
    static func replayed(_ error: FleetAuthError) throws -> FleetAuthError {
        let data = try JSONEncoder().encode(RecordedError(error))
        return try JSONDecoder().decode(RecordedError.self, from: data).error
    }

    @Test(arguments: [
        FleetAuthError.rejected([RuleResult(.audience, .fail, "audience is not Fleet Engine's")]),
        .wrongID(claim: "vehicleid", expected: "vehicle-1", found: "not-vehicle-1"),
        .alreadyExpired(expiredSecondsAgo: 60),
    ])
    func untilRejectedMatchesARefusedTokenLiveAndReplayed(_ error: FleetAuthError) throws {
        let rejected = ScenarioCondition(.rejected, side: .driver)
        #expect(rejected.matches(Self.failure(error)))
        let again = try Self.replayed(error)
        #expect(again.description == error.description, "the sentence is what the pane shows")
        #expect(rejected.matches(Self.failure(again)), "a replay of \(error) still counts as rejected")
    }

    @Test func otherFailuresAreNotRejectionsLiveOrReplayed() throws {
        let rejected = ScenarioCondition(.rejected)
        for error in [FleetAuthError.timeout(seconds: 10), .notJSON("cut short"), .other("boom")] {
            #expect(!rejected.matches(Self.failure(error)))
            #expect(!rejected.matches(Self.failure(try Self.replayed(error))))
        }
    }

    @Test func eventNamesAreOneTypedListForWatchAndScenarios() {
        #expect(ProviderEvent.allNames == ProviderEvent.Name.allCases.map(\.rawValue))
        for name in ProviderEvent.Name.allCases {
            #expect(ScenarioCondition.Trigger(name: name.rawValue) == .event(name))
        }
        #expect(ScenarioCondition.Trigger(name: "rejected") == .rejected)
        #expect(ScenarioCondition.Trigger(name: "fetchd") == nil)
    }
}
