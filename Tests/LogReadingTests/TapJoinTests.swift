import Foundation
import LogReading
import Testing

/// Fleet Engine's logs joined with a tap's fetches, on given times: the fixture's export (vehicle-1
/// silent from 115 s to 415 s; vehicle-2 calling until 301 s of an export that ends at 533 s) and
/// fetches placed around them.
@Suite(.timeLimit(.minutes(15)))
struct TapJoinTests {
    static func fetch(_ seconds: Double, _ id: String, _ outcome: TapFetch.Outcome = .good) -> TapFetch {
        TapFetch(time: ExportFixture.base.adding(seconds: seconds), id: LoggedID(.vehicle, id), outcome: outcome)
    }

    static func summary(_ fetches: [TapFetch]) -> LogSummary {
        let reader = ExportFixture.read(ExportFixture.lines(ExportFixture.fleet))
        var join = TapJoin(reader.tally)
        for fetch in fetches { join.add(fetch) }
        return LogSummary(reader, tap: join)
    }

    @Test func flawedTokensFetchedInASilenceSayTheDeviceRanAndWasRefused() throws {
        let summary = Self.summary([
            Self.fetch(100, "vehicle-1"), Self.fetch(200, "vehicle-1", .flawed("expired on arrival")),
            Self.fetch(260, "vehicle-1", .flawed("expired on arrival")), Self.fetch(320, "vehicle-1"),
        ])
        let finding = try #require(summary.tap?[LoggedID(.vehicle, "vehicle-1")])
        #expect(finding.verdict == .refusedWhileSilent)
        #expect(finding.explained == 1)
        #expect(finding.flaws == ["expired on arrival": 2])
        #expect(
            finding.sentence
                == "vehicle vehicle-1 fetched 3 tokens through the tap while silent (1 stretch, 300 s), 2 of them "
                + "flawed (expired on arrival): it was running, and Fleet Engine refused its calls, which it does not log."
        )
        // The fetch at 100 s was while it called: not in the silence.
        #expect(finding.windows.map(\.fetches) == [3])
    }

    @Test func goodTokensInASilenceDoNotExplainIt() throws {
        let summary = Self.summary([Self.fetch(200, "vehicle-1")])
        let finding = try #require(summary.tap?[LoggedID(.vehicle, "vehicle-1")])
        #expect(finding.verdict == .fetchedGoodWhileSilent)
        #expect(finding.sentence?.hasSuffix("its tokens do not explain the silence.") == true)
    }

    @Test func aDeviceTheTapSawOnlyBeforeItsSilenceWasNotRunningInIt() throws {
        let summary = Self.summary([Self.fetch(10, "vehicle-1"), Self.fetch(500, "vehicle-1")])
        let finding = try #require(summary.tap?[LoggedID(.vehicle, "vehicle-1")])
        #expect(finding.verdict == .notRunning)
        #expect(
            finding.sentence
                == "vehicle vehicle-1 fetched no token through the tap while silent (1 stretch, 300 s), 2 at other times: not running then."
        )
    }

    /// Refused from some moment on, a device never calls again: the quiet end of the export is
    /// read as a silence is, once it is longer than the device's own threshold (here 100 s: ten
    /// times its 10 s cadence).
    @Test func aDeviceRefusedUntilTheExportEndsIsExplainedByItsQuietEnd() throws {
        let summary = Self.summary([
            Self.fetch(290, "vehicle-2"), Self.fetch(400, "vehicle-2", .flawed("for another vehicleid")),
            Self.fetch(500, "vehicle-2", .flawed("for another vehicleid")),
        ])
        let finding = try #require(summary.tap?[LoggedID(.vehicle, "vehicle-2")])
        #expect(finding.windows.map(\.edge) == [.end])
        #expect(finding.windows.first?.seconds == 232)
        #expect(finding.verdict == .refusedWhileSilent)
        #expect(finding.flaws == ["for another vehicleid": 2])
    }

    @Test func aDeviceOnlyTheTapSawIsListedAndJudged() throws {
        let summary = Self.summary([
            Self.fetch(50, "vehicle-9", .flawed("fails rule exp")),
            Self.fetch(9_999, "vehicle-9", .flawed("outside the export")),
        ])
        let tally = try #require(summary.ids.first { $0.id == LoggedID(.vehicle, "vehicle-9") })
        #expect(tally.calls == 0)
        let finding = try #require(summary.tap?[tally.id])
        #expect(!finding.logged)
        #expect(
            finding.sentence
                == "vehicle vehicle-9 made no call Fleet Engine logged in the export's 533 s and fetched 1 token through "
                + "the tap, 1 of them flawed (fails rule exp): it was running, and Fleet Engine "
                + "refused its calls, which it does not log.")
        #expect(summary.json.contains(#""tap":{"fetches":2,"ids":1,"refused_while_silent":1,"#))
        #expect(
            summary.json.contains(
                #""no_token_while_silent":0,"fetched_good_while_silent":0,"not_running":0,"only_in_tap":1}"#))
    }

    /// Of an ID the tap never saw, it knows nothing: it may not stand in front of that device.
    @Test func anIDTheTapNeverSawHasNoFinding() throws {
        let summary = Self.summary([Self.fetch(200, "vehicle-1")])
        #expect(summary.tap?[LoggedID(.trip, "trip-1")]?.sentence == nil)
        #expect(summary.tap?[LoggedID(.vehicle, "vehicle-2")]?.verdict == nil)
    }

    @Test func theVersionTableCountsTheDevicesTheTapExplains() {
        let summary = Self.summary([Self.fetch(200, "vehicle-1", .flawed("expired on arrival"))])
        #expect(summary.versions.map(\.tapExplained) == [1, 0])
        #expect(
            LogSummary(ExportFixture.read(ExportFixture.lines(ExportFixture.fleet))).versions.map(\.tapExplained) == [
                nil, nil,
            ])
    }

    @Test func watchSaysEachFindingInALine() {
        let summary = Self.summary([Self.fetch(200, "vehicle-1", .flawed("expired on arrival"))])
        #expect(
            LoggedCallLines.findingLines(summary) == [
                #"{"time":"2024-05-01T10:08:53.000Z","kind":"vehicle","id":"vehicle-1","event":"tap_finding","#
                    + #""verdict":"refused_while_silent","finding":"vehicle vehicle-1 fetched 1 token through the tap "#
                    + #"while silent (1 stretch, 300 s), 1 of them flawed (expired on arrival): it was running, and Fleet "#
                    + #"Engine refused its calls, which it does not log."}"#
            ])
    }

    @Test func aDeviceWhoseEveryFetchFailedHadNoTokenToCallWith() throws {
        let summary = Self.summary([
            Self.fetch(200, "vehicle-1", .failed("backend answered HTTP 500")),
            Self.fetch(300, "vehicle-1", .failed("backend answered HTTP 500")),
        ])
        let finding = try #require(summary.tap?[LoggedID(.vehicle, "vehicle-1")])
        #expect(finding.verdict == .noTokenWhileSilent)
        #expect(
            finding.sentence
                == "vehicle vehicle-1 asked for a token 2 times through the tap while silent (1 stretch, 300 s), and "
                + "every fetch failed (backend answered HTTP 500): it was running, with no token to call Fleet Engine with."
        )
    }

    /// A recording keeps a failure as its sentence: the same flaw, whatever its numbers or IDs,
    /// is one name.
    @Test(arguments: [
        ("token already expired 30 s ago", true, TapFetch.Outcome.flawed("expired on arrival")),
        (#"token is for vehicleid "v2", not the requested "v1""#, true, .flawed("for another vehicleid")),
        (
            "token rejected: exp: expired 40 s before it was fetched; aud: not Fleet Engine's", true,
            .flawed("fails rule exp, aud")
        ),
        (
            "backend answered HTTP 503 (Service Unavailable): busy", false,
            .failed("backend answered HTTP 503 (Service Unavailable)")
        ),
        ("backend did not answer within 10 s", false, .failed("backend did not answer within 10 s")),
    ])
    func aFailuresSentenceIsNamedByItsKind(text: String, rejected: Bool, outcome: TapFetch.Outcome) {
        #expect(TapFetch.outcome(ofFailure: text, rejected: rejected) == outcome)
    }
}
