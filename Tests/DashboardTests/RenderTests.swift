@testable import Dashboard
@testable import UICore
import Fleet
import FleetAuth
import Foundation
import Testing

@Suite struct RenderTests {
    @Test func bothPanesSideBySideAt160x48() {
        let lines = Renderer.render(Fixtures.running(), width: 160, height: 48).lines
        #expect(lines.count == 48)
        #expect(lines[0].hasPrefix(" tokendash │ embedded on 127.0.0.1:40123 │ theme: default │ ● live"))
        #expect(lines[0].hasSuffix("08:00:15"))
        #expect(lines[1].contains("┌─ ▶ Consumer (trip token) ─") && lines[1].contains("┌─ Driver (vehicle token) ─"))
        #expect(lines[2].contains("Trip ID    trip-0001  ● ok") && lines[2].contains("Vehicle ID vehicle-0001  ● ok"))
        let text = lines.joined(separator: "\n")
        for expected in ["iss        tokendash-local@tokendash.iam.gserviceaccount.com", "aud        https://fleetengine.googleapis.com/",
                         #"auth       {"tripid":"trip-0001"}"#, #"auth       {"vehicleid":"vehicle-0001"}"#,
                         "iat → exp  08:00:00 → 08:01:00", "Checks     ✓ ok  signature not checked, 60 s lifetime, tripid trip-0001",
                         "Counters   req 1  hits 3  ratio 75%  err 0", "08:00:15  cache hit ×3",
                         "08:00:00  got token        12 ms  expires 08:01:00", "── ID changes (0) ", "── Fetch log "] {
            #expect(text.contains(expected), "missing: \(expected)")
        }
        #expect(lines[47].hasPrefix("Tab Focus r/R Refresh t Trip v Vehicle i ID f Faults c Clear x Reveal y Copy p Pause T Theme +/- Zoom m Mark z Freeze s Snapshot ? Help q Quit"))
    }

    @Test func panesStackAt80x24AndKeepTheEssentials() {
        let lines = Renderer.render(Fixtures.running(), width: 80, height: 24).lines
        #expect(lines.count == 24)
        let consumerTop = lines.firstIndex { $0.contains("Consumer (trip token)") }
        let driverTop = lines.firstIndex { $0.contains("Driver (vehicle token)") }
        #expect(consumerTop == 1)
        #expect((driverTop ?? 0) > 6)
        for line in lines { #expect(line.count <= 80) }
        let text = lines.joined(separator: "\n")
        for expected in ["Trip ID    trip-0001", "Vehicle ID vehicle-0001", "Expires    in 45 s", "Checks     ✓ ok", "── Fetch log"] {
            #expect(text.contains(expected), "missing: \(expected)")
        }
        #expect(lines[23].contains("? Help") && lines[23].contains("q Quit"), "help and quit stay in the footer when hints are cut")
    }

    @Test func aFailingPaneAt80x24StillShowsItsFetchLog() {
        var state = Fixtures.running()
        Fixtures.apply(&state, Fixtures.event(.driver, "vehicle-0001", .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.004), at: 16))
        let lines = Renderer.render(state, width: 80, height: 24).lines
        let driverTop = lines.firstIndex { $0.contains("Driver (vehicle token)") } ?? lines.count
        let driverPane = lines[driverTop...].joined(separator: "\n")
        #expect(driverPane.contains("Last error backend answered HTTP 500 Internal Server Error: boom"))
        #expect(driverPane.contains("── Fetch log"))
        #expect(driverPane.contains("08:00:16  failed"))
    }

    @Test func lifetimeIsTheSignedOneNotTheTimeSinceReceipt() {
        var state = Fixtures.state()
        var token = Fixtures.token(.consumer, id: "trip-0001")
        // Received 0.8 s after iat, as a real fetch is: the token still lives 60 s by its claims.
        token.receivedAt = Fixtures.t0.addingTimeInterval(0.8)
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetched(token, latency: 0.8), at: 0.8))
        #expect(Fixtures.text(state).contains("Checks     ✓ ok  signature not checked, 60 s lifetime, tripid trip-0001"))
    }

    @Test func theVerdictShowsItsWorstFindingAndTheClock() {
        var state = Fixtures.state()
        var token = Fixtures.token(.consumer, id: "trip-0001", findings: [
            RuleResult("alg", .ok, "RS256"),
            RuleResult("lifetime", .warn, "60 s, under 300 s"),
            RuleResult("clock", .warn, "backend clock is 1200 s behind this machine's (Date header)"),
            RuleResult("signature", .ok, "RS256 verified"),
        ])
        // This machine runs 1200 s ahead of the backend's Date header, and so does the token's iat.
        token.clockSkew = 1200
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetched(token, latency: 0.01), at: 0))
        let text = Fixtures.text(state)
        #expect(text.contains("Checks     ! lifetime: 60 s, under 300 s  (+1 more)"))
        #expect(text.contains("Clock      skew +1200 s, iat +1200 s vs backend  refused past 600 s"))
        #expect(text.contains("08:00:00  warning                 lifetime: 60 s, under 300 s"))
        #expect(text.contains("got token        10 ms  expires 08:01:00  #\(token.fingerprint)"))
        var signed = Fixtures.state()
        let good = Fixtures.token(.consumer, id: "trip-0001", findings: [RuleResult("signature", .ok, "RS256 verified")])
        Fixtures.apply(&signed, Fixtures.event(.consumer, "trip-0001", .fetched(good, latency: 0.01), at: 0))
        #expect(Fixtures.text(signed).contains("Checks     ✓ ok  signature ✓, 60 s lifetime, tripid trip-0001"))
    }

    @Test func thePaneTitleSaysWhichResponseShapeWasRead() {
        var state = Fixtures.state()
        var token = Fixtures.token(.consumer, id: "trip-0001")
        token.shape = "{access_token, expires_in s}"
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetched(token, latency: 0.01), at: 0))
        let lines = Renderer.render(state, width: 160, height: 48).lines
        #expect(lines[1].hasPrefix("┌─ ▶ Consumer (trip token) · {access_token, expires_in s} ─"))
    }

    @Test func aWarningEveryTokenCarriesIsLoggedOnce() {
        var state = Fixtures.state()
        let short = [RuleResult("lifetime", .warn, "60 s, under 300 s")]
        for (i, at) in [0.0, 30, 60].enumerated() {
            let token = Fixtures.token(.consumer, id: "trip-0001", issued: Fixtures.t0.addingTimeInterval(at), findings: short)
            Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetched(token, latency: 0.01), at: at))
            #expect(state.consumer.log.filter { $0.event == .warning }.count == 1, "after fetch \(i + 1)")
        }
        let skewed = Fixtures.token(.consumer, id: "trip-0001", findings: short + [RuleResult("iat", .warn, "iat is 90 s in the future")])
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetched(skewed, latency: 0.01), at: 90))
        #expect(state.consumer.log.filter { $0.event == .warning }.map(\.detail) == ["iat: iat is 90 s in the future", "lifetime: 60 s, under 300 s"])
    }

    @Test func longBackendURLsGiveWayToThemeAndStatus() {
        var state = Fixtures.running()
        state.backend = "https://tokens.example.com/fleet/v1/token/consumer/{tripId} | https://tokens.example.com/fleet/v1/token/driver/{vehicleId}"
        state.faultsAvailable = false
        Fixtures.apply(&state, .key(.character("p")))
        let header = Renderer.render(state, width: 80, height: 24).lines[0]
        #expect(header.hasPrefix(" tokendash │ https://tokens.example.com/"))
        #expect(header.contains("… │ theme: default │ ‖ paused"))
        #expect(header.hasSuffix("08:00:15"))
    }

    @Test func headerSaysWhenColoursAreOff() {
        var state = Fixtures.running()
        state.colorless = true
        #expect(Fixtures.text(state).hasPrefix(" tokendash │ embedded on 127.0.0.1:40123 │ theme: default (no colour) │ ● live"))
        state.theme = Theme(name: "mono", styles: [:])
        #expect(Fixtures.text(state).hasPrefix(" tokendash │ embedded on 127.0.0.1:40123 │ theme: mono │ ● live"))
    }

    @Test func tooSmallShowsBothSizesAndStillQuits() {
        var state = Fixtures.running()
        let text = Fixtures.text(state, 59, 24)
        #expect(text.contains("Terminal too small"))
        #expect(text.contains("current 59x24, need 60x16"))
        #expect(text.contains("press q to quit"))
        #expect(Fixtures.text(state, 100, 10).contains("current 100x10, need 60x16"))
        #expect(Fixtures.apply(&state, .key(.character("q"))) == [])
        #expect(state.quitting, "q quits from the too-small screen")
    }

    @Test func tokensAreRedactedUntilRevealed() throws {
        var state = Fixtures.running()
        let whole = try #require(state.consumer.token?.token)
        #expect(whole.hasSuffix(Fixtures.signature))
        let redacted = Fixtures.text(state)
        #expect(!redacted.contains(Fixtures.signature.prefix(20)))
        #expect(!redacted.contains(String(whole.dropFirst(12).prefix(20))))
        let fingerprint = TokenFingerprint.of(whole)
        #expect(redacted.contains("Token      #\(fingerprint)  \(whole.prefix(12))…\(whole.suffix(6))  (x reveals)"))
        Fixtures.apply(&state, .key(.character("x")))
        let revealed = Fixtures.text(state)
        // The token wraps over lines of the pane; every piece of it is there.
        let pieces = revealed.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "│ Token      ") ?? line.range(of: "│            ") else { return nil }
            return String(line[start.upperBound...].prefix(66)).trimmingCharacters(in: .whitespaces)
        }
        #expect(pieces.joined().contains(String(whole.prefix(60))))
        #expect(revealed.contains(String(whole.suffix(20))))
    }

    @Test func countdownAndGaugeColourFollowTheClock() {
        var state = Fixtures.running()
        func gauge(_ s: DashboardState) -> (String, StyleRole) {
            let canvas = Renderer.render(s, width: 160, height: 48)
            let row = (0..<canvas.height).first { canvas.lines[$0].contains("Expires") } ?? 0
            let x = canvas.lines[row].distance(from: canvas.lines[row].startIndex, to: canvas.lines[row].range(of: "Expires")?.lowerBound ?? canvas.lines[row].startIndex) + 11
            return (String(canvas.lines[row].dropFirst(x).prefix(12)), canvas[x, row].role)
        }
        #expect(gauge(state).0.hasPrefix("in 45 s"))
        #expect(gauge(state).1 == .gaugeFresh)
        Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(35)))
        #expect(gauge(state).0.hasPrefix("in 25 s"))
        #expect(gauge(state).1 == .gaugeMargin, "past the 30 s refresh margin")
        Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(52)))
        #expect(gauge(state).1 == .gaugeCritical, "in the last 10 s")
        Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(63)))
        #expect(gauge(state).0.hasPrefix("expired 3 s"))
        #expect(gauge(state).1 == .gaugeCritical)
    }

    @Test func errorsShowInThePane() {
        var state = Fixtures.running()
        Fixtures.apply(&state, Fixtures.event(.driver, "vehicle-0001", .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.004), at: 16))
        let text = Fixtures.text(state)
        #expect(text.contains("Last error backend answered HTTP 500 Internal Server Error: boom"))
        #expect(text.contains("08:00:16  failed          4.0 ms  backend answered HTTP 500 Internal Server… │"))
        #expect(text.contains("Counters   req 1  hits 3  ratio 75%  err 1"))
        // With no token at all the token line says why.
        var fresh = Fixtures.state()
        Fixtures.apply(&fresh, Fixtures.event(.consumer, "trip-0001", .fetchFailed(.unreachable(url: "http://x", reason: "connection refused"), latency: 0)))
        #expect(Fixtures.text(fresh).contains("Token      none: backend unreachable at http://x: connection refused"))
        // The provider says it waits out its backoff (1 s after one failure), then asks at the next call.
        Fixtures.apply(&fresh, Fixtures.event(.consumer, "trip-0001", .backingOff(until: Fixtures.t0.addingTimeInterval(1), attempt: 1)))
        #expect(Fixtures.text(fresh).contains("trip-0001  ● backing off · retry in 1 s (attempt 1)"))
        Fixtures.apply(&fresh, .tick(Fixtures.t0.addingTimeInterval(2)))
        #expect(Fixtures.text(fresh).contains("trip-0001  ● failing"))
    }

    @Test func helpListsEveryKeyOfTheTable() {
        var state = Fixtures.running()
        Fixtures.apply(&state, .key(.character("?")))
        let text = Fixtures.text(state)
        // A pair ("r/R") is one row, with the first one's help, written to cover both.
        for binding in KeyBinding.paired(KeyMap.standard.visible(fleet: false)) {
            #expect(text.contains(binding.help), "help misses \(binding.label)")
        }
        #expect(!text.contains("follow the next trip"), "fleet keys only show with a fleet")
    }

    @Test func faultMenuSaysWhenThereIsNoEmbeddedServer() {
        var state = Fixtures.running()
        state.faultsAvailable = false
        Fixtures.apply(&state, .key(.character("f")))
        #expect(Fixtures.text(state).contains("Fault injection needs the embedded token server;"))
        #expect(Fixtures.apply(&state, .key(.enter)) == [])
    }

    @Test func fleetRowsAppearAboveThePanes() {
        var state = Fixtures.state(trips: 10_000, vehicles: 10_000)
        var stats = ProviderCountersFixture.summary(providers: 10_000)
        stats.requestsPerSecond = 133.4
        Fixtures.apply(&state, .fleet([.consumer: stats, .driver: stats]))
        let lines = Renderer.render(state, width: 160, height: 48).lines
        #expect(lines[1].contains("fleet (60 s)    SDKs   req/s hit ratio errors err rate  p50 ms  p99 ms refresh due"))
        #expect(lines[2].contains("trips          10000   133.4       97%      0     0.0%     4.2    31.5          12"))
        #expect(lines[3].hasPrefix(" vehicles"))
        #expect(lines[4].contains("Trips (10000)"), "the focused kind's table")
        #expect(lines.contains { $0.contains("Consumer (trip token)") })
        let footer = lines.suffix(2).joined(separator: "\n")
        #expect(footer.contains("]/[ Member") && footer.contains("n/N Trouble"))
    }

    @Test func wideCharactersCannotBreakTheGrid() {
        var canvas = Canvas(width: 10, height: 1)
        canvas.put("ab漢😀c", x: 0, y: 0)
        #expect(canvas.lines == ["ab??c"])
    }
}

enum ProviderCountersFixture {
    static func summary(providers: Int) -> FleetSummary {
        var counters = ProviderCounters()
        counters.hits = 97
        counters.requests = 3
        var window = counters
        window.errors = 0
        return FleetSummary(providers: providers, requestsPerSecond: 0, counters: counters, window: window, p50LatencyMs: 4.2,
                            p99LatencyMs: 31.5, inRefreshMargin: 12)
    }
}

@Suite struct PaneRedactionTests {
    @Test func anErrorQuotingATokenShowsItRedactedInThePaneAndLog() {
        let leaked = Fixtures.token(.consumer, id: "trip-0001").token
        var state = Fixtures.running()
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetchFailed(.httpStatus(code: 400, body: leaked), latency: 0.004), at: 16))
        let text = Fixtures.text(state)
        #expect(text.contains("Last error backend answered HTTP 400 Bad Request: \(leaked.prefix(12))…"))
        #expect(!text.contains(leaked.split(separator: ".")[1].prefix(12)), "no part of the payload")
        #expect(!text.contains(Fixtures.signature.suffix(20)), "no more of the signature than the redacted form")
    }
}

@Suite struct ErrorWrappingTests {
    static let error = FleetAuthError.httpStatus(code: 401, body: "{\"error\":\"session expired, please sign in again\"}")

    @Test func aLongErrorWrapsSoItsCauseShowsInATallPane() {
        var state = Fixtures.state()
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetchFailed(Self.error, latency: 0.004)))
        let lines = Fixtures.text(state).split(separator: "\n").map(String.init)
        guard let row = lines.firstIndex(where: { $0.contains("Token      none: backend answered HTTP 401 Unauthorized") }) else {
            Issue.record("no token line with the error")
            return
        }
        // The body, at the end of the message, is on the pane: it is what tells one 401 from another.
        let pane = lines[row...(row + 2)].map { String($0.prefix(80)) }.joined(separator: "\n")
        #expect(pane.contains("sign in again"), "\(pane)")
        #expect(lines[row + 1].hasPrefix("│            "), "continuation lines are indented under the value")
    }

    @Test func aShortPaneKeepsTheErrorToOneLine() {
        var state = Fixtures.state()
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetchFailed(Self.error, latency: 0.004)))
        let text = Fixtures.text(state, 80, 24)
        #expect(text.contains("none: backend answered HTTP 401"))
        #expect(!text.contains("sign in again"))
    }

    @Test func wrappingBreaksAtSpacesAndMarksWhatIsCut() {
        let lines = PaneRenderer.wrapped("Token", "aaaa bbbb cccc dddd eeee", role: .error, width: PaneRenderer.labelWidth + 10, maxLines: 2)
        #expect(lines.map { $0.segments.map(\.0).joined() } == ["aaaa bbbb", "cccc dddd…"])
        #expect(lines.map(\.label) == ["Token", ""])
        let long = PaneRenderer.wrapped("Token", String(repeating: "x", count: 25), role: .error, width: PaneRenderer.labelWidth + 10, maxLines: 3)
        #expect(long.map { $0.segments.map(\.0).joined() } == ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"])
    }
}

/// The canvas's fast paths give the same columns as one grapheme per column would.
@Suite struct CanvasTextTests {
    @Test(arguments: [
        ("plain ascii", "plain ascii"),
        ("── rule ─ █░ → …", "── rule ─ █░ → …"),
        ("cafe\u{301} ok", "caf? ok"),
        ("ab漢😀c", "ab??c"),
        ("a\u{200D}b", "?b"),
        ("x🇫🇷y", "x?y"),
        ("tab\there", "tab?here"),
        ("line\nnext", "line"),
        ("é→e\u{301}→x", "é→?→x"),
    ])
    func textTakesOneColumnPerGrapheme(_ input: String, _ expected: String) {
        var canvas = Canvas(width: 20, height: 1)
        canvas.put(input, x: 0, y: 0)
        #expect(canvas.lines == [expected])
    }

    @Test func truncationMarksTheCutInEveryPath() {
        for (text, expected) in [("abcdefgh", "abcd…"), ("──────────", "────…"), ("é漢é漢é漢", "é?é?…"), ("abcde", "abcde")] {
            var canvas = Canvas(width: 10, height: 1)
            canvas.putTruncated(text, x: 0, y: 0, width: 5)
            #expect(canvas.lines == [expected], "\(text)")
        }
    }

    @Test func runsCoverExactlyTheChangedCellsOneStyleEach() {
        var a = Canvas(width: 10, height: 2)
        a.put("hello", x: 0, y: 0)
        var b = a
        b.put("J", x: 0, y: 0, role: .error)
        b.put("xy", x: 3, y: 1, role: .ok)
        b.put("z", x: 5, y: 1, role: .warning)
        var runs: [String] = []
        b.forEachChangedRun(since: a) { x, y, run in runs.append("\(x),\(y):" + String(String.UnicodeScalarView(run.map(\.scalar)))) }
        #expect(runs == ["0,0:J", "3,1:xy", "5,1:z"])
        var none = 0
        b.forEachChangedRun(since: b) { _, _, _ in none += 1 }
        #expect(none == 0)
        var whole: [Int] = []
        b.forEachChangedRun(since: nil) { _, _, run in whole.append(run.count) }
        #expect(whole.reduce(0, +) == 20, "no previous frame: every cell")
    }
}
