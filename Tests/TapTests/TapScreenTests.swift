import Dashboard
import DashboardRuntime
import Evidence
import Fleet
import FleetAuth
import Foundation
import Recording
import Tap
import TestSupport
import Testing
import UICore

/// The tap's screen as an operator meets it, fed by the real ledger: a churning vehicle counted
/// as trouble in the title, `n` landing on it, and Enter showing its last hour.
@Suite(.timeLimit(.minutes(3))) struct TapScreenTests {
    static let t0 = ReplayChurnTests.t0

    static func lines(_ state: DashboardState, _ width: Int, _ height: Int) -> [String] {
        Renderer.render(state, width: width, height: height).lines
    }

    @Test func aChurningIDIsTroubleAndFollowingItShowsItsLastHour() throws {
        // vehicle-017 fetches every 3 minutes for 27 minutes with hour-long tokens: 10× per token;
        // vehicle-123 asked once and kept its token.
        var readings = try (0...9).map { try ReplayChurnTests.reading("vehicle-017", at: Double($0) * 180) }
        readings.append(try ReplayChurnTests.reading("vehicle-123", at: 1))
        let end = Self.t0.addingTimeInterval(1700)
        let aggregate = FleetAggregate(learning: [.consumer, .driver])
        let marks = TapTableMarks(churnLimit: 4)
        for reading in readings {
            for event in reading.providerEvents {
                aggregate.record(event)
                marks.record(event)
            }
        }
        var state = DashboardState(
            consumerID: "", driverID: "", now: end, backend: "tap", faultsAvailable: false,
            trips: FleetStatistics.defaultCapacity, vehicles: FleetStatistics.defaultCapacity)
        state.learnMembers()
        _ = Reducer.reduce(&state, .fleet(aggregate.summaries(now: end)))
        _ = Reducer.reduce(&state, .fleetTables(marks.apply(to: aggregate.tables(now: end), now: end)))
        _ = Reducer.reduce(&state, .key(.tab))

        let before = Self.lines(state, 80, 24)
        #expect(before.contains { $0.contains("Vehicles (2): 1 churning, 1 ok") })
        #expect(before.contains { $0.contains("churn · ok") })
        #expect(before[0].contains("1 churning"))
        // The table takes the space: no pane before an ID is followed.
        #expect(!before.joined().contains("Driver (vehicle token)"))
        #expect(before.contains { $0.contains("Enter follows an ID: its token, checks and last hour of fetches") })

        // `n` lands on the churning vehicle, and follows it.
        let effects = Reducer.reduce(&state, .key(.character("n")))
        let churner = try #require(state.session.fleetTables[.driver]?.rows.first { $0.id == "vehicle-017" })
        #expect(effects.contains(.follow(.driver, index: churner.index)))
        #expect(state[.driver].memberIndex == churner.index)

        // What the tap's performer answers: the ID with its last hour from the ledger.
        let history = try #require(marks.history(.driver, id: "vehicle-017", now: end))
        _ = Reducer.reduce(
            &state,
            .following(
                .driver, index: churner.index,
                member: MemberSnapshot(id: "vehicle-017", token: history.token, tapped: history)))
        let after = Self.lines(state, 160, 48).joined(separator: "\n")
        // Every fetch of its last hour in the fetch log: status, verdict, expiry, fingerprint.
        let fingerprints = readings.filter { $0.id == "vehicle-017" }.compactMap(\.fingerprint)
        #expect(fingerprints.count == 10)
        let logged = after.split(separator: "\n").filter { $0.contains("fetch") && $0.contains("200 ok, expires") }
        for fingerprint in fingerprints { #expect(logged.contains { $0.contains("#" + fingerprint) }) }
        #expect(after.contains("fetches 10  tokens 10  10× per token"))
        #expect(after.contains("● fetches 10× per token: the app's provider is not caching"))

        // A fetch after Enter is listed and counted as the ledger's were; no SDK `request` line.
        let next = try ReplayChurnTests.reading("vehicle-017", at: 1750)
        for event in next.providerEvents { _ = Reducer.reduce(&state, .event(event)) }
        let later = Self.lines(state, 160, 48).joined(separator: "\n")
        #expect(later.contains("fetches 11  tokens 11"))
        #expect(later.contains("#" + (next.fingerprint ?? "?")))
        #expect(!later.contains("request "))
    }

    /// A tap's recording replayed reads as live did: the churn counted in the title and header,
    /// the verdict column's `churn · ok`, the tap's summary row, and the table first.
    @Test func aReplayedTapRecordingShowsTheSameTitlesAndVerdicts() throws {
        let recording = try ReplayChurnTests.recordedChurn()
        let replayed = ReplayTimeline(
            recording, initial: recording.header.initialState(),
            marks: TapTableMarks.maker(churnLimit: recording.header.churnLimit)
        ).fold(to: recording.end).state
        for (width, height) in [(80, 24), (160, 48)] {
            let lines = Self.lines(replayed, width, height)
            #expect(lines.contains { $0.contains("Trips (2): 1 churning, 1 http_error") })
            #expect(lines.contains { $0.contains("trip-017") && $0.contains("churn · ok") })
            #expect(lines.contains { $0.contains("tap (1 h)") && $0.contains("churning") })
            #expect(!lines.joined().contains("hit ratio"))
            #expect(lines.contains { $0.contains("Enter follows an ID") })
        }
    }
}
