import Fleet
import Foundation
import KeyTable
import ProviderEvents
import ProviderVocabulary
import Testing
import TokenReading

@testable import Dashboard
@testable import UICore

/// One fact of a frame each: a whole row of the screen or of a pane, compared exactly. Whole
/// frames are GoldenFrameTests': both panes side by side at 160x48 and stacked at 80x24
/// (`running`), a failing driver with its error and fetch log (`aFailingDriver`), the fleet rows
/// above the panes (`aFleet`), the verdict's worst finding and the clock line, the too-small
/// screen, the fault menu without an embedded server.
@Suite(.timeLimit(.minutes(15))) struct RenderTests {
    /// The consumer pane as a 160x48 screen shows it (its left half), one string per row.
    static func consumerPane(_ state: DashboardState) -> [String] {
        Renderer.render(state, width: 160, height: 48).lines.map { String($0.prefix(80)) }
    }

    /// The pane's row that starts with `label`.
    static func row(_ label: String, in pane: [String]) -> String? { pane.first { $0.hasPrefix("│ \(label)") } }

    /// A pane's row 80 columns wide holding `text`: what `row` and a stacked pane's lines compare with.
    static func paneRow(_ text: String) -> String {
        "│ " + text + String(repeating: " ", count: max(0, 77 - text.count)) + "│"
    }

    /// The header row at `width` columns: `left`, then the clock at the right edge.
    static func headerRow(_ left: String, clock: String = "08:00:15", width: Int = 160) -> String {
        left + String(repeating: " ", count: max(0, width - 1 - left.count - clock.count)) + clock
    }

    @Test func lifetimeIsTheSignedOneNotTheTimeSinceReceipt() {
        var state = Fixtures.state()
        var token = Fixtures.token(.consumer, id: "trip-0001")
        // Received 0.8 s after iat, as a real fetch is: the token still lives 60 s by its claims.
        token.receivedAt = Fixtures.t0.addingTimeInterval(0.8)
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetched(token, latency: 0.8), at: 0.8))
        #expect(
            Self.row("Checks", in: Self.consumerPane(state))
                == Self.paneRow("Checks     ✓ ok  signature not checked, 60 s lifetime, tripid trip-0001"))
    }

    /// (A token with warnings: GoldenFrameTests.theVerdictShowsItsWorstFindingAndTheClock.)
    @Test func aVerifiedSignatureShowsInTheVerdict() {
        var signed = Fixtures.state()
        let good = Fixtures.token(.consumer, id: "trip-0001", findings: [RuleResult(.signature, .ok, "RS256 verified")])
        Fixtures.apply(&signed, Fixtures.event(.consumer, "trip-0001", .fetched(good, latency: 0.01), at: 0))
        #expect(
            Self.row("Checks", in: Self.consumerPane(signed))
                == Self.paneRow("Checks     ✓ ok  signature ✓, 60 s lifetime, tripid trip-0001"))
    }

    @Test func thePaneTitleSaysWhichResponseShapeWasRead() {
        var state = Fixtures.state()
        var token = Fixtures.token(.consumer, id: "trip-0001")
        token.shape = "{access_token, expires_in s}"
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetched(token, latency: 0.01), at: 0))
        #expect(
            Self.consumerPane(state)[1]
                == "┌─ ▶ Consumer (trip token) · {access_token, expires_in s} ─────────────────────┐")
    }

    @Test func aWarningEveryTokenCarriesIsLoggedOnce() {
        var state = Fixtures.state()
        let short = [RuleResult(.lifetime, .warn, "60 s, under 300 s")]
        for (i, at) in [0.0, 30, 60].enumerated() {
            let token = Fixtures.token(
                .consumer, id: "trip-0001", issued: Fixtures.t0.addingTimeInterval(at), findings: short)
            Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetched(token, latency: 0.01), at: at))
            #expect(state.consumer.log.filter { $0.event == .warning }.count == 1, "after fetch \(i + 1)")
        }
        let skewed = Fixtures.token(
            .consumer, id: "trip-0001", findings: short + [RuleResult(.issuedAt, .warn, "iat is 90 s in the future")])
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetched(skewed, latency: 0.01), at: 90))
        #expect(
            state.consumer.log.filter { $0.event == .warning }.map(\.detail) == [
                "iat: iat is 90 s in the future", "lifetime: 60 s, under 300 s",
            ])
    }

    @Test func longBackendURLsGiveWayToThemeAndStatus() {
        var state = Fixtures.running()
        state.backend =
            "https://tokens.example.com/fleet/v1/token/consumer/{tripId} | https://tokens.example.com/fleet/v1/token/driver/{vehicleId}"
        state.faultsAvailable = false
        Fixtures.apply(&state, .key(.character("p")))
        let header = Renderer.render(state, width: 80, height: 24).lines[0]
        #expect(header == " tokendash │ https://tokens.example.com/f… │ theme: default │ ‖ paused 08:00:15")
    }

    @Test func headerSaysWhenColoursAreOff() {
        var state = Fixtures.running()
        state.colorless = true
        #expect(
            Renderer.render(state, width: 160, height: 48).lines[0]
                == Self.headerRow(" tokendash │ embedded on 127.0.0.1:40123 │ theme: default (no colour) │ ● live"))
        state.theme = Theme(name: "mono", styles: [:])
        #expect(
            Renderer.render(state, width: 160, height: 48).lines[0]
                == Self.headerRow(" tokendash │ embedded on 127.0.0.1:40123 │ theme: mono │ ● live"))
    }

    /// (The screen itself: GoldenFrameTests.tooSmall.)
    @Test func qQuitsFromTheTooSmallScreen() {
        var state = Fixtures.running()
        Fixtures.apply(&state, .resized(width: 59, height: 24))
        #expect(Fixtures.apply(&state, .key(.character("q"))) == [])
        #expect(state.quitting, "q quits from the too-small screen")
    }

    @Test func tokensAreRedactedUntilRevealed() throws {
        var state = Fixtures.running()
        let whole = try #require(state.consumer.token?.token)
        #expect(whole.hasSuffix(Fixtures.signature))
        // Nowhere on the screen: no piece of the signature or of the payload.
        let redacted = Fixtures.text(state)
        #expect(!redacted.contains(Fixtures.signature.prefix(20)))
        #expect(!redacted.contains(String(whole.dropFirst(12).prefix(20))))
        let fingerprint = TokenFingerprint.of(whole)
        #expect(
            Self.row("Token", in: Self.consumerPane(state))
                == Self.paneRow("Token      #\(fingerprint)  \(whole.prefix(12))…\(whole.suffix(6))  (x reveals)"))
        Fixtures.apply(&state, .key(.character("x")))
        // Revealed, the token wraps over rows of the pane from its Token row on: read back, they
        // are the whole token.
        let pane = Self.consumerPane(state)
        let first = try #require(pane.firstIndex { $0.hasPrefix("│ Token      ") })
        let rows = [pane[first]] + pane[(first + 1)...].prefix { $0.hasPrefix("│            ") }
        #expect(rows.map { $0.dropFirst(13).dropLast().trimmingCharacters(in: .whitespaces) }.joined() == whole)
    }

    @Test func countdownAndGaugeColourFollowTheClock() {
        var state = Fixtures.running()
        func gauge(_ s: DashboardState) -> (String, StyleRole) {
            let canvas = Renderer.render(s, width: 160, height: 48)
            let row = (0..<canvas.height).first { canvas.lines[$0].contains("Expires") } ?? 0
            let x =
                canvas.lines[row].distance(
                    from: canvas.lines[row].startIndex,
                    to: canvas.lines[row].range(of: "Expires")?.lowerBound ?? canvas.lines[row].startIndex) + 11
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

    /// With no token at all the token row says why, and the status what the provider does next.
    /// (A failing driver with a token: GoldenFrameTests.aFailingDriver.)
    @Test func errorsShowInThePane() {
        var fresh = Fixtures.state()
        Fixtures.apply(
            &fresh,
            Fixtures.event(
                .consumer, "trip-0001",
                .fetchFailed(.unreachable(url: "http://x", reason: "connection refused"), latency: 0)))
        #expect(
            Self.row("Token", in: Self.consumerPane(fresh))
                == Self.paneRow("Token      none: backend unreachable at http://x: connection refused"))
        // The provider says it waits out its backoff (1 s after one failure), then asks at the next call.
        Fixtures.apply(
            &fresh,
            Fixtures.event(.consumer, "trip-0001", .backingOff(until: Fixtures.t0.addingTimeInterval(1), attempt: 1)))
        #expect(
            Self.row("Trip ID", in: Self.consumerPane(fresh))
                == Self.paneRow("Trip ID    trip-0001  ● backing off · retry in 1 s (attempt 1)"))
        Fixtures.apply(&fresh, .tick(Fixtures.t0.addingTimeInterval(2)))
        #expect(Self.row("Trip ID", in: Self.consumerPane(fresh)) == Self.paneRow("Trip ID    trip-0001  ● failing"))
    }

    /// Every binding of the key table has a row of the help box that ends with its help. (The
    /// box as a whole: GoldenFrameTests.theHelp.)
    @Test func helpListsEveryKeyOfTheTable() throws {
        var state = Fixtures.running()
        Fixtures.apply(&state, .key(.character("?")))
        let lines = Renderer.render(state, width: 160, height: 48).lines.map(Array.init)
        let top = try #require(lines.firstIndex { String($0).contains("┌─ Keys") })
        let left = try #require(lines[top].firstIndex(of: "┌"))
        let right = try #require(lines[top][(left + 1)...].firstIndex(of: "┐"))
        // The box's rows, inside its borders, from under its title to its bottom border.
        let rows = lines[(top + 1)...].prefix { $0.count > right && $0[left] == "│" }
            .map { String($0[(left + 1)..<right]).trimmingCharacters(in: .whitespaces) }
        // A pair ("r/R") is one row, with the first one's help, written to cover both.
        for binding in KeyBinding.paired(KeyMap.standard.visible(fleet: false)) {
            #expect(rows.contains { $0.hasSuffix(binding.help) }, "help misses \(binding.label)")
        }
        // Fleet keys only show with a fleet.
        for binding in KeyMap.standard.visible(fleet: true) where binding.fleetOnly {
            #expect(!rows.contains { $0.hasSuffix(binding.help) }, "help shows the fleet key \(binding.label)")
        }
    }

    /// (The menu's text: GoldenFrameTests.theFaultMenuWithoutAnEmbeddedServer.)
    @Test func theFaultMenuWithoutAnEmbeddedServerChoosesNothing() {
        var state = Fixtures.running()
        state.faultsAvailable = false
        Fixtures.apply(&state, .key(.character("f")))
        #expect(Fixtures.apply(&state, .key(.enter)) == [])
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
        return FleetSummary(
            providers: providers, requestsPerSecond: 0, counters: counters, window: window, p50LatencyMs: 4.2,
            p99LatencyMs: 31.5, inRefreshMargin: 12)
    }
}

@Suite(.timeLimit(.minutes(15))) struct PaneRedactionTests {
    @Test func anErrorQuotingATokenShowsItRedactedInThePaneAndLog() {
        let leaked = Fixtures.token(.consumer, id: "trip-0001").token
        var state = Fixtures.running()
        Fixtures.apply(
            &state,
            Fixtures.event(
                .consumer, "trip-0001", .fetchFailed(.httpStatus(code: 400, body: leaked), latency: 0.004), at: 16))
        #expect(
            RenderTests.row("Last error", in: RenderTests.consumerPane(state))
                == RenderTests.paneRow(
                    "Last error backend answered HTTP 400 Bad Request: \(leaked.prefix(12))…\(leaked.suffix(6))"))
        let text = Fixtures.text(state)
        #expect(
            !text.contains(leaked.split(separator: ".")[1].prefix(12)), "no part of the payload anywhere on the screen")
        #expect(!text.contains(Fixtures.signature.suffix(20)), "no more of the signature than the redacted form")
    }
}

@Suite(.timeLimit(.minutes(15))) struct ErrorWrappingTests {
    static let error = FleetAuthError.httpStatus(
        code: 401, body: "{\"error\":\"session expired, please sign in again\"}")

    @Test func aLongErrorWrapsSoItsCauseShowsInATallPane() throws {
        var state = Fixtures.state()
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetchFailed(Self.error, latency: 0.004)))
        let pane = RenderTests.consumerPane(state)
        let row = try #require(pane.firstIndex { $0.hasPrefix("│ Token") })
        // The body, at the end of the message, is on the pane: it is what tells one 401 from
        // another. Continuation rows are indented under the value.
        #expect(
            Array(pane[row...(row + 2)]) == [
                RenderTests.paneRow("Token      none: backend answered HTTP 401 Unauthorized (the backend did not"),
                RenderTests.paneRow(#"           accept our credentials; check --header): {"error":"session"#),
                RenderTests.paneRow(#"           expired, please sign in again"}"#),
            ])
    }

    @Test func aShortPaneKeepsTheErrorToOneLine() {
        var state = Fixtures.state()
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetchFailed(Self.error, latency: 0.004)))
        let lines = Renderer.render(state, width: 80, height: 24).lines
        let row = lines.firstIndex { $0.hasPrefix("│ Token") } ?? 0
        // Cut at the pane's edge, and the next row is the next field.
        #expect(
            lines[row]
                == RenderTests.paneRow("Token      none: backend answered HTTP 401 Unauthorized (the backend did no…"))
        #expect(lines[row + 1] == RenderTests.paneRow("Expires    –"))
    }

    @Test func wrappingBreaksAtSpacesAndMarksWhatIsCut() {
        let lines = PaneRenderer.wrapped(
            "Token", "aaaa bbbb cccc dddd eeee", role: .error, width: PaneRenderer.labelWidth + 10, maxLines: 2)
        #expect(lines.map { $0.segments.map(\.0).joined() } == ["aaaa bbbb", "cccc dddd…"])
        #expect(lines.map(\.label) == ["Token", ""])
        let long = PaneRenderer.wrapped(
            "Token", String(repeating: "x", count: 25), role: .error, width: PaneRenderer.labelWidth + 10, maxLines: 3)
        #expect(long.map { $0.segments.map(\.0).joined() } == ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"])
    }
}

/// The canvas's fast paths give the same columns as one grapheme per column would.
@Suite(.timeLimit(.minutes(15))) struct CanvasTextTests {
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
        for (text, expected) in [
            ("abcdefgh", "abcd…"), ("──────────", "────…"), ("é漢é漢é漢", "é?é?…"), ("abcde", "abcde"),
        ] {
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
        b.forEachChangedRun(since: a) { x, y, run in
            runs.append("\(x),\(y):" + String(String.UnicodeScalarView(run.map(\.scalar))))
        }
        #expect(runs == ["0,0:J", "3,1:xy", "5,1:z"])
        var none = 0
        b.forEachChangedRun(since: b) { _, _, _ in none += 1 }
        #expect(none == 0)
        var whole: [Int] = []
        b.forEachChangedRun(since: nil) { _, _, run in whole.append(run.count) }
        #expect(whole.reduce(0, +) == 20, "no previous frame: every cell")
    }

    /// A row is first compared a word a cell: bytes a cell never writes (its padding) must not
    /// make equal rows differ, and a change of scalar or role anywhere in the row must show.
    @Test func rowsCompareByTheirCellsNotTheirPadding() {
        let count = 37
        let cells: [Cell] = (0..<count).map { i in
            let letter = Unicode.Scalar(UInt8(65 + i % 26))
            return Cell(letter, role: i % 3 == 0 ? .ok : .text)
        }
        func row(_ cells: [Cell], padding: UInt8) -> UnsafeMutablePointer<Cell> {
            let raw = UnsafeMutableRawPointer.allocate(
                byteCount: cells.count * MemoryLayout<Cell>.stride, alignment: MemoryLayout<Cell>.alignment)
            raw.initializeMemory(as: UInt8.self, repeating: padding, count: cells.count * MemoryLayout<Cell>.stride)
            let typed = raw.bindMemory(to: Cell.self, capacity: cells.count)
            for (i, cell) in cells.enumerated() { typed[i] = cell }
            return typed
        }
        let a = row(cells, padding: 0x00)
        let b = row(cells, padding: 0xA5)
        defer {
            a.deallocate()
            b.deallocate()
        }
        #expect(Cell.sameRow(a, b, count: count), "the same cells over other padding")
        for i in [0, 17, count - 1] {
            for changed in [Cell("#", role: cells[i].role), Cell(cells[i].scalar, role: .error)] {
                let c = row(cells.enumerated().map { $0.offset == i ? changed : $0.element }, padding: 0xA5)
                defer { c.deallocate() }
                #expect(!Cell.sameRow(a, c, count: count), "cell \(i) changed to \(changed)")
            }
        }
    }
}

/// A fetch log's column draws what its padded text drew (`fitted`, `leftPadded`, the gap after),
/// to the cell and role, cut at the pane's edge with the same ellipsis, in any room.
@Suite(.timeLimit(.minutes(15))) struct PaneColumnTests {
    @Test func aColumnDrawsAsItsPaddedTextWould() {
        let columns: [(String, Int, Bool, Int)] = [
            ("got token", 14, false, 0), ("cache hit ×12345 and more", 14, false, 0), ("12 ms", 8, true, 2),
            ("123456789 ms", 8, true, 2), ("08:00:00", 8, false, 2), ("", 8, true, 2), ("", 14, false, 0),
            ("héllo ×3", 14, false, 0), ("café", 3, false, 1),
        ]
        for (text, width, right, gap) in columns {
            let padded =
                (right ? text.leftPadded(width, with: " ") : text.fitted(width)) + String(repeating: " ", count: gap)
            for room in 0...24 {
                var drawn = Canvas(width: 30, height: 1)
                var expected = drawn
                let used = PaneRenderer.Column(text: text, role: .logHit, width: width, right: right, gap: gap).draw(
                    &drawn, x: 2, y: 0, room: room)
                let wanted = expected.putTruncated(padded, x: 2, y: 0, width: room, role: .logHit)
                #expect(drawn == expected && used == wanted, "\"\(text)\" in \(width), room \(room)")
            }
        }
    }
}

/// Cells made once and drawn again (a rule, a graph's lane, a kept log row) land where `put`
/// would put them, clipped at the limit and at the canvas's edge, and nowhere else.
@Suite(.timeLimit(.minutes(15))) struct CanvasCellsTests {
    @Test func cellsAreCopiedClippedAtTheLimitAndTheEdge() {
        let row = Array("abcdef".unicodeScalars.map { Cell($0, role: .logInfo) })
        for (x, y, limit, written) in [
            (0, 0, 10, 6), (2, 1, 3, 3), (6, 0, 10, 4), (9, 2, 10, 1), (10, 0, 5, 0), (0, 3, 5, 0), (-1, 0, 5, 0),
        ] {
            var canvas = Canvas(width: 10, height: 3)
            var expected = canvas
            #expect(canvas.put(cells: row, x: x, y: y, limit: limit) == written, "at \(x),\(y) limit \(limit)")
            if written > 0 {
                expected.put(
                    String(String.UnicodeScalarView(row.prefix(written).map(\.scalar))), x: x, y: y, role: .logInfo)
            }
            #expect(canvas == expected, "at \(x),\(y) limit \(limit)")
        }
    }
}

/// A drawer of many frames (a cast's run) draws each over the one before: what it gets is blank,
/// in the old frame's memory when nothing else holds it, and the frame drawn is the one a new
/// canvas would show.
@Suite(.timeLimit(.minutes(15))) struct CanvasReuseTests {
    static func address(_ canvas: Canvas) -> UnsafeRawPointer? {
        canvas.cells.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func aCanvasDrawnOverIsBlankInTheSameMemory() {
        for (width, height) in [(1, 1), (7, 3), (160, 48), (300, 100)] {
            var used = Canvas(width: width, height: height)
            used.put(String(repeating: "x", count: width), x: 0, y: height - 1, role: .error)
            let before = Self.address(used)
            let reused = Canvas(width: width, height: height, reusing: consume used)
            #expect(reused == Canvas(width: width, height: height), "\(width)x\(height)")
            #expect(reused.cells.allSatisfy { $0 == Cell() }, "\(width)x\(height)")
            #expect(Self.address(reused) == before, "\(width)x\(height): the old frame's memory")
        }
        // Held elsewhere, or of another size: new memory, and the old canvas left as it was.
        var held = Canvas(width: 5, height: 2)
        held.put("hello", x: 0, y: 0)
        let copy = held
        let fresh = Canvas(width: 5, height: 2, reusing: held)
        #expect(fresh == Canvas(width: 5, height: 2))
        #expect(copy.lines == ["hello", ""])
        #expect(Canvas(width: 4, height: 4, reusing: copy) == Canvas(width: 4, height: 4))
    }

    @Test func aFrameDrawnOverAnotherIsTheFrameDrawnAfresh() {
        let first = Fixtures.running()
        var later = first
        Fixtures.apply(
            &later, Fixtures.event(.consumer, "trip-0001", .fetchFailed(.timeout(seconds: 10), latency: 10), at: 9))
        _ = Reducer.reduce(&later, .tick(Fixtures.t0.addingTimeInterval(10)))
        for (width, height) in [(160, 48), (80, 24), (40, 10)] {
            let drawn = Renderer.render(first, width: width, height: height)
            let memory = CanvasReuseTests.address(drawn)
            let over = Renderer.render(later, width: width, height: height, reusing: consume drawn)
            #expect(CanvasReuseTests.address(over) == memory, "\(width)x\(height): drawn in the old frame's memory")
            #expect(over.lines == Renderer.render(later, width: width, height: height).lines, "\(width)x\(height)")
            #expect(over == Renderer.render(later, width: width, height: height), "\(width)x\(height)")
        }
    }
}
