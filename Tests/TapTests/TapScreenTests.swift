import Dashboard
import DashboardRuntime
import Evidence
import Fleet
import FleetTables
import Foundation
import ProviderVocabulary
import Recording
import TapReading
import TestSupport
import Testing
import UICore

/// The tap's screen as an operator meets it, fed by the real ledger: a churning vehicle counted
/// as trouble in the title, `n` landing on it, and Enter showing its last hour.
@Suite(.timeLimit(.minutes(15))) struct TapScreenTests {
    static let t0 = ReplayChurnTests.t0

    static func lines(_ state: DashboardState, _ width: Int, _ height: Int) -> [String] {
        Renderer.render(state, width: width, height: height).lines
    }

    /// The tap's dashboard at `end` after `readings`, as the live source makes it (the aggregate
    /// and the ledger's marks fed the same events), the vehicles' table focused.
    static func liveTap(_ readings: [TappedExchange], at end: Date) -> (DashboardState, TapTableMarks) {
        let aggregate = FleetAggregate(learning: [.consumer, .driver])
        let marks = TapTableMarks(churnLimit: 4)
        for reading in readings {
            for event in reading.providerEvents {
                aggregate.record(event)
                marks.record(event)
            }
        }
        var state = DashboardState(
            consumerID: "", driverID: "", now: end, backend: "tap", faultsAvailable: false, refreshMargin: 0,
            trips: FleetStatistics.defaultCapacity, vehicles: FleetStatistics.defaultCapacity)
        state.learnMembers()
        _ = Reducer.reduce(&state, .fleet(aggregate.summaries(now: end)))
        _ = Reducer.reduce(&state, .fleetTables(marks.apply(to: aggregate.tables(now: end), now: end)))
        _ = Reducer.reduce(&state, .key(.tab))
        return (state, marks)
    }

    @Test func aChurningIDIsTroubleAndFollowingItShowsItsLastHour() throws {
        // vehicle-017 fetches every 3 minutes for 27 minutes with hour-long tokens: 10× per token;
        // vehicle-123 asked once and kept its token.
        var readings = try (0...9).map { try ReplayChurnTests.reading("vehicle-017", at: Double($0) * 180) }
        readings.append(try ReplayChurnTests.reading("vehicle-123", at: 1))
        let end = Self.t0.addingTimeInterval(1700)
        let (live, marks) = Self.liveTap(readings, at: end)
        var state = live

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

    /// The summary's error columns count IDs, as their headers say, by the class of each ID's
    /// last fetch: a device retrying a refusal three times is one ID, and a churning ID whose last
    /// fetch was refused is counted too, though the title counts it as churning.
    @Test func theSummaryCountsIDsWithErrorsNotFetches() throws {
        var readings = try (0...9).map { try ReplayChurnTests.reading("vehicle-017", at: Double($0) * 180) }
        readings.append(try ReplayChurnTests.reading("vehicle-017", at: 1650, status: 503))
        readings += try [2, 3, 4].map { try ReplayChurnTests.reading("vehicle-188", at: Double($0), status: 503) }
        readings.append(try ReplayChurnTests.reading("vehicle-123", at: 1))
        let end = Self.t0.addingTimeInterval(1700)
        let (state, _) = Self.liveTap(readings, at: end)
        let lines = Self.lines(state, 160, 48)
        #expect(lines.contains { $0.contains("Vehicles (3): 1 churning, 1 http_error, 1 ok") })
        let header = try #require(lines.first { $0.contains("IDs http err") })
        let row = try #require(lines.first { $0.hasPrefix(" vehicles") })
        // The cell under its header, right-aligned to it.
        func cell(_ title: String) throws -> String {
            let range = try #require(header.range(of: title))
            let from = header.distance(from: header.startIndex, to: range.lowerBound)
            let chars = Array(row)
            return String(chars[from..<(from + title.count)]).trimmingCharacters(in: .whitespaces)
        }
        #expect(try cell("IDs http err") == "2")
        #expect(try cell("IDs fail") == "0")
        #expect(try cell("fetches/h") == "15")
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

    /// A tap recording as `tokendash replay` plays it: its source, and each effect answered by
    /// `ReplayEffectPerformer`, as the replay's loop does.
    struct Replay {
        var state: DashboardState
        let source: ReplayEventSource
        let performer: ReplayEffectPerformer

        init(_ recording: Recording) {
            state = recording.header.initialState()
            source = ReplayEventSource(
                timeline: ReplayTimeline(
                    recording, initial: state, marks: TapTableMarks.maker(churnLimit: recording.header.churnLimit)),
                paused: true)
            state.replay = source.status
            performer = ReplayEffectPerformer(source: source) { name in .message("no theme \(name)") }
        }

        /// Applies `actions` as the loop does: all of them, then their effects' answers (a seek's
        /// run of recorded actions is applied before the tables its ticks ask for come back).
        mutating func apply(_ actions: [Action]) async {
            var effects: [Effect] = []
            for action in actions { effects += Reducer.reduce(&state, action) }
            for effect in effects { await apply(performer.perform(effect)) }
        }
    }

    static let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("DashboardTests/Golden")

    /// The replayed tap's whole frame, before and after `n` follows the churning trip: the titles,
    /// verdicts, summary and table-first layout of live tap, then the trip's seven fetches from the
    /// recording, its counters and its churn as the pane's status. `UPDATE_GOLDEN=1` rewrites them.
    @Test(arguments: [(80, 24), (160, 48)])
    func aReplayedTapRecordingFollowsAChurningTrip(_ width: Int, _ height: Int) async throws {
        let recording = try ReplayChurnTests.recordedChurn()
        var replay = Replay(recording)
        await replay.apply(replay.source.perform(.toEnd))
        try GoldenFrame.check(
            Renderer.render(replay.state, width: width, height: height), name: "tap-replay-table", in: Self.goldenFolder
        )
        await replay.apply([.key(.character("n"))])
        #expect(replay.state[.consumer].id == "trip-017")
        try GoldenFrame.check(
            Renderer.render(replay.state, width: width, height: height), name: "tap-replay-following-churn",
            in: Self.goldenFolder)
    }

    /// Enter in a replay follows the selected ID with its last hour from the recording: every
    /// fetch, the counters, the churn status; `n` lands on the churning trip, not the failing one.
    @Test func followingInAReplayShowsTheIDsFetchesFromTheRecording() async throws {
        let recording = try ReplayChurnTests.recordedChurn()
        var replay = Replay(recording)
        await replay.apply(replay.source.perform(.toEnd))
        #expect(Self.lines(replay.state, 160, 48).contains { $0.contains("Enter Follow") })
        await replay.apply([.key(.character("n"))])
        #expect(replay.state[.consumer].id == "trip-017")
        // Back to the table's first row (trip-017, churn first) and Enter: the same pane.
        await replay.apply([.key(.enter)])
        let text = Self.lines(replay.state, 160, 48).joined(separator: "\n")
        #expect(replay.state[.consumer].id == "trip-017")
        let fingerprints = recording.events.filter { $0.id == "trip-017" }.compactMap { event -> String? in
            if case .fetched(let token, _) = event.kind { token.fingerprint } else { nil }
        }
        #expect(fingerprints.count == 7)
        for fingerprint in fingerprints { #expect(text.contains("#" + fingerprint)) }
        #expect(text.contains("fetches 7  tokens 7  7× per token"))
        #expect(text.contains("● fetches 7× per token: the app's provider is not caching"))
        #expect(!text.contains("not in a replay"))
    }

    /// A recording in which the operator followed the churning trip live: played back, the pane
    /// shows the trip's last hour from the recording, though the recorded line keeps only its ID
    /// and token.
    @Test func aFollowRecordedLiveShowsTheIDsLastHourInTheReplay() async throws {
        // trip-005 asks first (member 0), so the churning trip is member 1.
        var readings = [try ReplayChurnTests.reading("trip-005", at: 0, kind: .consumer)]
        readings += try (0...6).map {
            try ReplayChurnTests.reading("trip-017", at: 1 + Double($0) * 300, kind: .consumer)
        }
        readings.append(try ReplayChurnTests.reading("trip-005", at: 1950, kind: .consumer))
        let at = Self.t0.addingTimeInterval(1900)
        let recording = try ReplayChurnTests.recorded(
            readings,
            actions: [
                (.key(.character("n")), at),
                (.following(.consumer, index: 1, member: MemberSnapshot(id: "trip-017")), at),
            ])
        var replay = Replay(recording)
        await replay.apply(replay.source.perform(.toEnd))
        #expect(replay.state[.consumer].id == "trip-017")
        let text = Self.lines(replay.state, 160, 48).joined(separator: "\n")
        #expect(text.contains("fetches 7  tokens 7  7× per token"))
        #expect(text.contains("● fetches 7× per token: the app's provider is not caching"))
        // A seek back rebuilds the state from the start (`fold`): the same pane.
        await replay.apply(replay.source.perform(.seek(-10)))
        #expect(Self.lines(replay.state, 160, 48).joined().contains("fetches 7  tokens 7  7× per token"))
    }
}
