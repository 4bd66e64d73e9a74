import Dashboard
import Fleet
import FleetEngineAPI
import Foundation
import KeyTable
import Pacing
import ProviderEvents
import ProviderVocabulary
import RecordingFormat
import Redaction
import TestSupport
import Testing
import TokenReading
import UICore

@testable import DashboardRuntime
@testable import Recording

/// `--record` then `replay`: a live loop driven through the fake terminal and a test clock writes
/// a recording; replaying it must show the same screens at the same recorded times.
@Suite(.timeLimit(.minutes(15))) struct RecordReplayTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let utc = TimeZone(identifier: "UTC") ?? .current
    static let signature = "U0VDUkVULXNpZ25hdHVyZS1uZXZlci1pbi1hLWZpbGU"

    static func token(_ kind: ProviderKind, id: String, issued: Date, lifetime: Int = 60) throws -> FetchedToken {
        let iat = Int(issued.timeIntervalSince1970)
        let jwt = TestJWT.make(kind: kind, id: id, iat: iat, exp: iat + lifetime, signature: signature)
        var token = FetchedToken(
            token: jwt, id: id, expiresAt: issued.addingTimeInterval(TimeInterval(lifetime)), receivedAt: issued,
            jwt: try JWTInspector.decode(jwt), findings: [RuleResult(.lifetime, .warn, "60 s is short")],
            clockSkew: 1.5)
        token.refreshAt = issued.addingTimeInterval(TimeInterval(lifetime) - 20)
        token.shape = "jwt + expirationTimestamp"
        return token
    }

    /// A live dashboard recording to a file: each `step` sets the clock, queues `actions` as the
    /// providers and effects would, presses `key`, and keeps the frame the user then sees.
    final class LiveRig {
        let clock = ManualClock(RecordReplayTests.t0)
        let inbox = ActionInbox()
        let terminal: FakeTerminal
        let loop: DashboardLoop
        let writer: RecordingWriter
        let path: String
        let initial: DashboardState
        var samples: [(time: Date, lines: [String])] = []

        init(command: [String] = ["tokendash", "--record", "r.jsonl"]) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString).jsonl").path
            terminal = FakeTerminal(clock: clock)
            var state = DashboardState(
                consumerID: "trip-0001", driverID: "vehicle-0001", now: RecordReplayTests.t0,
                backend: "embedded on 127.0.0.1:40123", faultsAvailable: true,
                themeNames: ["default", "high-contrast"])
            state.timeZone = RecordReplayTests.utc
            state.updateInterval = 5
            initial = state
            writer = try RecordingWriter(path: path)
            writer.start(
                RecordingHeader(
                    state: state, members: [.consumer: ["trip-0001"], .driver: ["vehicle-0001"]], command: command,
                    source: "dashboard", tokendash: "tokendash test", ticks: true, start: RecordReplayTests.t0))
            loop = DashboardLoop(state: state, terminal: terminal, inbox: inbox, clock: clock) { _ in }
            loop.recorder = writer
            loop.start()
        }

        func step(at seconds: TimeInterval, key: Key? = nil, _ actions: [Action] = []) {
            clock.set(RecordReplayTests.t0.addingTimeInterval(seconds))
            for action in actions { inbox.send(action) }
            // A key at once, or a wait that times out (the clock moves 100 ms).
            terminal.script = [key]
            #expect(loop.step())
            samples.append((clock.now(), Renderer.render(loop.state, width: 100, height: 30).lines))
        }

        func event(_ kind: ProviderKind, _ id: String, _ k: ProviderEvent.Kind, at seconds: TimeInterval) -> Action {
            .event(
                ProviderEvent(time: RecordReplayTests.t0.addingTimeInterval(seconds), provider: kind, id: id, kind: k))
        }

        /// A minute of a session: fetches, hits, keys, a failure, an ID switch, a fault, expiry;
        /// the recording closed at its end unless the test goes on (`closing` false).
        func playSession(closing: Bool = true) throws {
            step(at: 0)
            step(
                at: 0.5,
                [
                    event(.consumer, "trip-0001", .fetchStarted(reason: .noToken), at: 0.4),
                    event(.driver, "vehicle-0001", .fetchStarted(reason: .noToken), at: 0.4),
                ])
            step(
                at: 1.2,
                [
                    event(
                        .consumer, "trip-0001",
                        .fetched(try token(.consumer, id: "trip-0001", issued: t(1)), latency: 0.8), at: 1.2),
                    event(
                        .driver, "vehicle-0001",
                        .fetched(try token(.driver, id: "vehicle-0001", issued: t(1)), latency: 0.7), at: 1.1),
                ])
            step(at: 2, key: .tab)
            step(
                at: 3.3,
                [
                    event(.consumer, "trip-0001", .cacheHit(count: 3, expiresAt: t(61)), at: 3.2),
                    // Fleet Engine's answers: one accepted, one refused with its message, the rules disagreeing.
                    event(
                        .consumer, "trip-0001",
                        .fleetEngineCall(
                            FleetEngineAnswer(
                                method: .getTrip, resource: "providers/p/trips/trip-0001", httpStatus: 200,
                                status: "OK", message: "",
                                latency: 0.004, fingerprint: "1a2b3c4d", rules: .ok)), at: 3.25),
                    event(
                        .driver, "vehicle-0001",
                        .fleetEngineCall(
                            FleetEngineAnswer(
                                method: .updateVehicle, resource: "providers/p/vehicles/vehicle-0001", httpStatus: 403,
                                status: "PERMISSION_DENIED", message: "no access to vehicle-0001", latency: 0.005,
                                fingerprint: "5e6f7a8b",
                                rules: .ok, refusedByProvider: false)), at: 3.26),
                ])
            step(at: 4.5, key: .character("+"))
            step(
                at: 5,
                [
                    event(.driver, "vehicle-0001", .fetchStarted(reason: .forced), at: 5),
                    event(
                        .driver, "vehicle-0001",
                        .fetchFailed(.httpStatus(code: 429, body: "slow down", retryAfter: 30), latency: 0.05), at: 5.05
                    ),
                    event(.driver, "vehicle-0001", .backingOff(until: t(35), attempt: 1), at: 5.05),
                ])
            step(at: 6, key: .character("i"))
            step(at: 6.2, key: .character("x"))
            step(at: 6.4, key: .escape)
            step(
                at: 7,
                [
                    event(.consumer, "trip-0001", .idChanged(from: "trip-0001", to: "trip-0002"), at: 7),
                    event(.consumer, "trip-0002", .cacheDropped(reason: "ID changed"), at: 7),
                    event(
                        .consumer, "trip-0001",
                        .fetchFailed(.superseded(requested: "trip-0001", current: "trip-0002"), latency: 0.3), at: 7.1),
                ])
            step(at: 8, [.faultsChanged([.consumer: .http500]), .message("theme x: no such theme")])
            step(at: 9, key: .character("f"))
            step(at: 9.5, key: .down)
            step(at: 10, key: .character("q"))
            for second in 11...20 { step(at: TimeInterval(second)) }
            step(at: 21, [event(.driver, "vehicle-0001", .expired(at: t(61)), at: 21)])
            step(at: 22, key: .click(x: 5, y: 10))
            for second in 23...30 { step(at: TimeInterval(second)) }
            if closing { writer.close() }
        }

        func t(_ seconds: TimeInterval) -> Date { RecordReplayTests.t0.addingTimeInterval(seconds) }
    }

    /// The replay side: the recording read back, and a state the test reduces what it sends into.
    struct Viewer {
        let source: ReplayEventSource
        var state: DashboardState

        init(_ recording: Recording) {
            var initial = recording.header.initialState(themeNames: ["default", "high-contrast"])
            initial.timeZone = RecordReplayTests.utc
            source = ReplayEventSource(timeline: ReplayTimeline(recording, initial: initial))
            state = initial
            state.replay = source.status
        }

        /// Applies `actions` as the replay's loop does; a query for tables is answered by the
        /// replay's source, as `ReplayEffectPerformer` answers it.
        mutating func apply(_ actions: [Action]) {
            for action in actions {
                for effect in Reducer.reduce(&state, action) {
                    guard case .queryTables(let filters) = effect else {
                        Issue.record("a recorded key's effect was carried out: \(effect)")
                        continue
                    }
                    apply(source.answer(.queryTables(filters)))
                }
            }
        }

        /// The screen between the header, which says "replay" instead of "live", and the key
        /// hints, which list the replay's keys.
        var body: [String] { Array(Renderer.render(state, width: 100, height: 30).lines.dropFirst().dropLast(2)) }
    }

    @Test func aReplayShowsWhatTheLiveDashboardShowedAtEachRecordedTime() throws {
        let live = try LiveRig()
        try live.playSession()
        let recording = try Recording.read(live.path)
        #expect(recording.problems.isEmpty)
        var viewer = Viewer(recording)
        #expect(live.samples.count == 35)
        for (i, sample) in live.samples.enumerated() {
            viewer.apply(viewer.source.play(until: sample.time))
            #expect(
                viewer.body == Array(sample.lines.dropFirst().dropLast(2)),
                "sample \(i) at \(sample.time.timeIntervalSince(Self.t0)) s")
            // The clock in the header is the recorded one.
            #expect(
                Renderer.render(viewer.state, width: 100, height: 30).lines[0].hasSuffix(
                    String(sample.lines[0].suffix(8))))
        }
        // At the end it stops, and says so.
        #expect(viewer.state.replay?.text(Self.utc) == "replay 08:00:30 ‖ paused ×1 0:30/0:30")
    }

    @Test func seekingBackAndForwardLandsWhereplayingThroughDoes() throws {
        let live = try LiveRig()
        try live.playSession()
        let recording = try Recording.read(live.path)
        func playedThrough(_ seconds: TimeInterval) -> [String] {
            var fresh = Viewer(recording)
            fresh.apply(fresh.source.play(until: Self.t0.addingTimeInterval(seconds)))
            return fresh.body
        }
        var viewer = Viewer(recording)
        viewer.apply(viewer.source.perform(.toEnd))
        // The last step was at 30 s; its tick 100 ms into it.
        let end = recording.end.timeIntervalSince(Self.t0)
        #expect(abs(end - 30.1) < 0.001)
        #expect(viewer.body == playedThrough(end))
        // Back 10 s twice: rebuilt from the start.
        viewer.apply(viewer.source.perform(.seek(-10)))
        #expect(viewer.source.status.position == recording.end.addingTimeInterval(-10))
        #expect(viewer.body == playedThrough(end - 10))
        viewer.apply(viewer.source.perform(.seek(-10)))
        #expect(viewer.body == playedThrough(end - 20))
        #expect(viewer.body != playedThrough(end - 10), "the screens 10 s apart differ, or this proves nothing")
        viewer.apply(viewer.source.perform(.toStart))
        #expect(viewer.body == playedThrough(0))
        viewer.apply(viewer.source.perform(.seek(10)))
        #expect(viewer.body == playedThrough(10))
        // Step: to the next recorded event, skipping ticks, and paused.
        viewer.apply(viewer.source.perform(.step))
        let expiry = viewer.source.status.position.timeIntervalSince(Self.t0)
        #expect(abs(expiry - 21.1) < 0.001, "the expiry, recorded in the step at 21 s")
        #expect(viewer.source.status.paused)
        #expect(viewer.body == playedThrough(expiry))
        #expect(viewer.body != playedThrough(21), "the expiry shows")
    }

    @Test func theLoopReplaysWithoutItsOwnTicksAndCarriesOutNoRecordedEffect() async throws {
        let live = try LiveRig()
        try live.playSession()
        let recording = try Recording.read(live.path)
        var initial = recording.header.initialState()
        initial.timeZone = Self.utc
        let source = ReplayEventSource(timeline: ReplayTimeline(recording, initial: initial), paused: true)
        initial.replay = source.status
        let inbox = ActionInbox()
        let clock = ManualClock(Date(timeIntervalSince1970: 2_000_000_000))
        let terminal = FakeTerminal(clock: clock)
        let dispatched = DashboardLoopTests.Dispatched()
        let performer = ReplayEffectPerformer(source: source) { _ in .message("no themes here") }
        let loop = DashboardLoop(state: initial, terminal: terminal, inbox: inbox, clock: clock) { effect in
            dispatched.record(effect)
            Task { for action in await performer.perform(effect) { inbox.send(action) } }
        }
        loop.ticks = false
        loop.start()
        // End: everything recorded (refreshes, q, the fault menu's choice) is applied...
        terminal.script = [.end]
        #expect(loop.step())
        // The answer comes from an effect task; the suite's time limit ends a lost one.
        _ = await eventually {
            terminal.script = [nil]
            _ = loop.step()
            return loop.state.replay?.position == recording.end
        }
        #expect(dispatched.all == [.replay(.toEnd)], "only the viewer's key is carried out")
        #expect(!loop.state.quitting)
        // ...and the state's clock is the recorded one, not the loop's.
        #expect(loop.state.now == recording.end)
        #expect(loop.state.driver.log.first?.event == .expired)
    }

    @Test func speedScalesRealTimeAndPauseStopsIt() throws {
        let live = try LiveRig()
        try live.playSession()
        var viewer = Viewer(try Recording.read(live.path))
        viewer.apply(viewer.source.advance(realSeconds: 1))
        #expect(viewer.source.status.position == Self.t0.addingTimeInterval(1))
        viewer.apply(viewer.source.perform(.nextSpeed))
        viewer.apply(viewer.source.advance(realSeconds: 1))
        #expect(viewer.source.status.position == Self.t0.addingTimeInterval(5))
        #expect(viewer.state.replay?.speed == 4)
        viewer.apply(viewer.source.perform(.togglePause))
        viewer.apply(viewer.source.advance(realSeconds: 10))
        #expect(viewer.source.status.position == Self.t0.addingTimeInterval(5))
        #expect(Renderer.render(viewer.state, width: 100, height: 30).lines[0].contains("‖ paused ×4"))
    }

    @Test func aRecordingHoldsNoWholeTokenNoURLPasswordAndNoHeaderValueEvenRevealed() throws {
        let live = try LiveRig(command: [
            "tokendash", "--consumer-url", "https://demo:hunter2@tokens.example/t/{tripId}?key=apikey123",
            "--header", "X-Api-Key:topsecret", "--header=Authorization:Bearer abc.def", "--record", "r.jsonl",
        ])
        let token = try RecordReplayTests.token(.consumer, id: "trip-0001", issued: Self.t0)
        live.step(at: 0, key: .character("x"))
        #expect(live.loop.state.reveal)
        live.step(
            at: 1,
            [
                live.event(.consumer, "trip-0001", .fetched(token, latency: 0.1), at: 1),
                live.event(
                    .driver, "vehicle-0001",
                    .fetchFailed(
                        .unreachable(url: "https://demo:hunter2@tokens.example/v/1", reason: "refused \(token.token)"),
                        latency: 0.1), at: 1),
                .message("backend said https://demo:hunter2@tokens.example/?token=\(token.token)"),
            ])
        live.writer.close()
        let text = try String(contentsOfFile: live.path, encoding: .utf8)
        for secret in [
            token.token, String(Self.signature.dropLast(6)), "hunter2", "apikey123", "topsecret", "Bearer abc",
        ] {
            #expect(!text.contains(secret), "\(secret) is in the recording")
        }
        // What it keeps instead: the fingerprint, the claims and the redacted form.
        #expect(text.contains(token.fingerprint))
        #expect(text.contains(TokenRedactor.redact(token.token)))
        #expect(text.contains("\"tripid\":\"trip-0001\""))
        #expect(text.contains("X-Api-Key:‹hidden›"))
        // Replayed, the pane shows what the live one showed unrevealed, and revealed says why there is no more.
        let recording = try Recording.read(live.path)
        let replayed = try #require(
            recording.events.compactMap { if case .fetched(let t, _) = $0.kind { t } else { nil } }.first)
        #expect(TokenRedactor.redact(replayed.token) == TokenRedactor.redact(token.token))
        #expect(replayed.fingerprint == token.fingerprint)
        #expect(replayed.token.contains("not recorded"))
    }

    /// Read a line at a time (`tokendash logs --tap`), a recording gives the events it gives read
    /// whole, and the same note where a line cannot be read: at the end, and mid-file.
    @Test func eventsReadALineAtATimeAreTheEventsReadWhole() throws {
        let live = try LiveRig()
        try live.playSession()
        let whole = try Recording.read(live.path)
        var streamed: [ProviderEvent] = []
        #expect(try Recording.forEachEvent(in: live.path) { streamed.append($0) }.isEmpty)
        #expect(streamed == whole.events)
        #expect(!streamed.isEmpty)

        let text = try String(contentsOfFile: live.path, encoding: .utf8)
        var lines = text.split(separator: "\n").map(String.init)
        lines.insert("{not json", at: 3)
        let garbled = lines.joined(separator: "\n") + "\n"
        for (name, damaged) in [
            ("cut", text + "{\"t\":31,\"type\":\"event\",\"event\":{\"time\":31,\"prov"), ("garbled", garbled),
        ] {
            try damaged.write(toFile: live.path, atomically: true, encoding: .utf8)
            let read = try Recording.read(live.path)
            var events: [ProviderEvent] = []
            let problems = try Recording.forEachEvent(in: live.path) { events.append($0) }
            #expect(events == read.events, "\(name)")
            // The same line and reason; what is counted before it differs (events, or all actions).
            let place = { (note: String) in note.components(separatedBy: "; showing").first ?? note }
            #expect(problems.map(place) == read.problems.map(place), "\(name)")
            #expect(problems.first?.hasSuffix("showing the \(events.count) events before it") == true, "\(name)")
        }
        #expect(throws: RecordingError.unreadable("/nonexistent/r.jsonl", "no such file")) {
            try Recording.forEachEvent(in: "/nonexistent/r.jsonl") { _ in }
        }
    }

    @Test func aTruncatedLastLineIsNamedAndWhatCameBeforeIsKept() throws {
        let live = try LiveRig()
        try live.playSession()
        let whole = try Recording.read(live.path)
        var text = try String(contentsOfFile: live.path, encoding: .utf8)
        let lines = text.split(separator: "\n").count
        text += "{\"t\":31,\"type\":\"event\",\"event\":{\"time\":31,\"prov"
        try text.write(toFile: live.path, atomically: true, encoding: .utf8)
        let cut = try Recording.read(live.path)
        #expect(cut.actions == whole.actions)
        #expect(
            cut.problems == [
                "\(live.path):\(lines + 1): truncated or garbled last line; showing the \(whole.actions.count) actions before it"
            ])
        // Shown where the user looks.
        var viewer = Viewer(cut)
        viewer.state.message = cut.problems.last
        #expect(viewer.body[0].contains("truncated or garbled last line"))
    }

    @Test func aNewerFormatIsSaidAndWhatCanBeReadIsShown() throws {
        let live = try LiveRig()
        try live.playSession()
        var lines = try String(contentsOfFile: live.path, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[0] = lines[0].replacingOccurrences(of: "\"version\":1", with: "\"version\":2")
        lines.insert("{\"t\":2.5,\"type\":\"hologram\"}", at: 10)
        try (lines.joined(separator: "\n") + "\n").write(toFile: live.path, atomically: true, encoding: .utf8)
        let recording = try Recording.read(live.path)
        #expect(
            recording.problems.first
                == "\(live.path):1: format version 2 is newer than this tokendash reads (1); showing what it can read")
        #expect(
            recording.problems.last?.hasPrefix(
                "\(live.path):11: unknown line type \"hologram\"; showing the 9 actions before it") == true,
            "\(recording.problems)")
        #expect(recording.actions.count == 9)
    }

    /// A flush due when a test says so, as a second of wall time makes it due for the commands.
    final class TickedPacer: FlushPacer {
        private let ticks = DispatchSemaphore(value: 0)
        func waitForNextFlush() { ticks.wait() }
        func tick() { ticks.signal() }
    }

    @Test func linesReachTheFileAtEachFlushWithoutClosing() async throws {
        // What a crash would leave: the file as it is, never closed.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("open-\(UUID().uuidString).jsonl").path
        let pacer = TickedPacer()
        let writer = try RecordingWriter(path: path, pacer: pacer)
        defer {
            writer.close()
            pacer.tick()
        }
        let lines = { (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").count ?? 0 }
        let state = DashboardState(
            consumerID: "trip-0001", driverID: "vehicle-0001", now: Self.t0, backend: "b", faultsAvailable: false)
        writer.start(
            RecordingHeader(
                state: state, members: [:], command: [], source: "dashboard", tokendash: "t", ticks: true, start: Date()
            ))
        #expect(lines() == 1, "the header at once")
        writer.record(.key(.character("x")), at: Date())
        #expect(lines() == 1, "queued until the flush is due")
        pacer.tick()
        #expect(await eventually { lines() == 2 }, "written at the flush, the file still open")
    }

    /// A run on a sample's logic replays with that logic named in the panes' titles; older
    /// recordings, and a logic this version does not know, read as tokendash's.
    @Test func theProviderLogicIsRecordedAndShownInTheReplay() throws {
        var state = DashboardState(
            consumerID: "trip-1", driverID: "vehicle-1", now: Self.t0, backend: "b", faultsAvailable: true)
        state.providerLogic = .objcSample
        let header = RecordingHeader(
            state: state, members: [:], command: [], source: "dashboard", tokendash: "t", ticks: true, start: Self.t0)
        let encoded = try JSONEncoder().encode(header)
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""provider_logic":"objc-sample""#))
        let replayed = try JSONDecoder().decode(RecordingHeader.self, from: encoded).initialState()
        #expect(replayed.providerLogic == .objcSample)
        #expect(
            Renderer.render(replayed, width: 160, height: 48).lines[1].contains("Consumer (trip token) · ObjC sample"))
        var unknown = header
        unknown.providerLogic = "kotlin-sample"
        #expect(unknown.initialState().providerLogic == .tokendash)
    }

    @Test func aRecordedFleetHasItsRowsAndTableInReplayFromTheRecordedEvents() throws {
        let trips = ["trip-0", "trip-1", "trip-2"]
        let header = RecordingHeader(
            state: DashboardState(
                consumerID: "trip-0", driverID: "vehicle-0001", now: Self.t0, backend: "b",
                faultsAvailable: true, trips: 3),
            members: [.consumer: trips, .driver: ["vehicle-0001"]], command: [], source: "dashboard",
            tokendash: "t", ticks: true, start: Self.t0)
        let base = header.base
        var lines = [RecordedLine(.tick(Self.t0.addingTimeInterval(1)), at: Self.t0.addingTimeInterval(1), base: base)]
        for (i, id) in trips.enumerated() {
            let at = Self.t0.addingTimeInterval(1.5)
            let kind: ProviderEvent.Kind =
                i == 2
                ? .fetchFailed(.httpStatus(code: 500, body: ""), latency: 0.01)
                : .fetched(try Self.token(.consumer, id: id, issued: at), latency: 0.01)
            lines.append(
                RecordedLine(
                    .event(ProviderEvent(time: at, provider: .consumer, id: id, kind: kind)), at: at, base: base))
        }
        lines.append(RecordedLine(.tick(Self.t0.addingTimeInterval(2)), at: Self.t0.addingTimeInterval(2), base: base))
        let encoder = JSONEncoder()
        var data = try encoder.encode(header) + Data("\n".utf8)
        for line in lines.compactMap({ $0 }) { data += try encoder.encode(line) + Data("\n".utf8) }
        let recording = try Recording.parse(data, name: "fleet.jsonl")
        var initial = recording.header.initialState()
        initial.timeZone = Self.utc
        #expect(initial.isFleet && initial.consumer.memberCount == 3)
        var viewer = Viewer(recording)
        viewer.apply(viewer.source.play(until: Self.t0.addingTimeInterval(2)))
        #expect(viewer.state.fleet[.consumer]?.states[.ok] == 2)
        #expect(viewer.state.fleet[.consumer]?.states.values.reduce(0, +) == 3)
        #expect(viewer.state.fleet[.consumer]?.window.errors == 1)
        #expect(viewer.state.tables[.consumer]?.latest.rows.map(\.id).sorted() == trips)
        // The table's border hints its keys, less following (live only).
        let screen = Renderer.render(viewer.state, width: 160, height: 48).lines.joined(separator: "\n")
        #expect(screen.contains("/ Filter") && !screen.contains("Enter Follow"), "\(screen)")
        // The table's filter is answered from the replay's own aggregate.
        let filtered = viewer.source.answer(.queryTables([.consumer: "trip-1"]))
        guard case .fleetTables(let tables) = filtered.first else {
            Issue.record("no table for the filter")
            return
        }
        #expect(tables[.consumer]?.rows.map(\.id) == ["trip-1"])
        // And seeking back rebuilds them as they were.
        viewer.apply(viewer.source.perform(.toStart))
        viewer.apply(viewer.source.perform(.seek(2)))
        #expect(viewer.state.fleet[.consumer]?.states[.ok] == 2)
    }

    @Test func aRecordedRampShowsItsPaceInReplayAsTheLiveLineDid() throws {
        let trips = ["trip-0", "trip-1", "trip-2"]
        var live = DashboardState(
            consumerID: "trip-0", driverID: "vehicle-0001", now: Self.t0, backend: "b", faultsAvailable: true,
            trips: 3)
        let header = RecordingHeader(
            state: live, members: [.consumer: trips, .driver: ["vehicle-0001"]], command: [], source: "dashboard",
            tokendash: "t", ticks: true, start: Self.t0)
        let base = header.base
        let slow = Pacer.Status(
            rate: 250, ceiling: 1000, floor: 1, reason: .slow(p99: 0.42), inFlight: 8, window: 8, active: true)
        let at = Self.t0.addingTimeInterval(1.5)
        let actions: [(Action, Date)] = [
            (.tick(Self.t0.addingTimeInterval(1)), Self.t0.addingTimeInterval(1)),
            (
                .event(
                    ProviderEvent(
                        time: at, provider: .consumer, id: "trip-0",
                        kind: .fetched(try Self.token(.consumer, id: "trip-0", issued: at), latency: 0.01))), at
            ),
            (.rampPace(slow), Self.t0.addingTimeInterval(1.6)),
            (.tick(Self.t0.addingTimeInterval(2)), Self.t0.addingTimeInterval(2)),
            (.rampPace(nil), Self.t0.addingTimeInterval(3)),
        ]
        let encoder = JSONEncoder()
        var data = try encoder.encode(header) + Data("\n".utf8)
        for (action, time) in actions {
            data += try encoder.encode(try #require(RecordedLine(action, at: time, base: base))) + Data("\n".utf8)
        }
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""type":"pace""#) && text.contains(#""reason":"slow""#), "\(text)")
        let recording = try Recording.parse(data, name: "ramp.jsonl")
        #expect(recording.problems.isEmpty, "\(recording.problems)")
        var viewer = Viewer(recording)
        viewer.apply(viewer.source.play(until: Self.t0.addingTimeInterval(2)))
        #expect(viewer.state.session.rampPace == slow)
        // The same line the live dashboard drew with that pace.
        for (action, _) in actions.prefix(4) { _ = Reducer.reduce(&live, action) }
        live.fleet = viewer.state.fleet
        let line = { (state: DashboardState) in
            Renderer.render(state, width: 160, height: 48).lines.first { $0.contains("started ") } ?? ""
        }
        #expect(line(viewer.state).contains("ramp 250/s (backend p99 0.4 s, slowing)"), "\(line(viewer.state))")
        #expect(line(viewer.state).contains("held: 8 calls unanswered"))
        #expect(line(viewer.state) == line(live))
        viewer.apply(viewer.source.play(until: Self.t0.addingTimeInterval(3)))
        #expect(viewer.state.session.rampPace == nil)
    }

    @Test func aPaceNoPacerReachesEndsTheReadingThere() throws {
        let pace =
            #"{"t":1,"type":"pace","pace":{"rate":RATE,"ceiling":10,"floor":1,"reason":"REASON","in_flight":0,"window":4,"active":true}}"#
        func line(rate: String = "5", reason: String = "calm") -> String {
            pace.replacingOccurrences(of: "RATE", with: rate).replacingOccurrences(of: "REASON", with: reason)
        }
        let good = try Recording.parse(try recordingFile([line()]), name: "r.jsonl")
        #expect(good.problems.isEmpty && good.actions.count == 1)
        let huge = try Recording.parse(try recordingFile([line(), line(rate: "1e300")]), name: "r.jsonl")
        #expect(
            huge.problems == [
                "r.jsonl:3: pace rate 1e+300 is not 0 to 1000000000 calls a second; showing the 1 action before it"
            ])
        let unknown = try Recording.parse(try recordingFile([line(reason: "sleepy")]), name: "r.jsonl")
        #expect(unknown.problems.first?.hasPrefix(#"r.jsonl:2: unknown pace reason "sleepy""#) == true)
    }

    @Test func aMissingFileOrAnotherFileIsOneLine() throws {
        #expect(throws: RecordingError.unreadable("/nonexistent/r.jsonl", "no such file")) {
            try Recording.read("/nonexistent/r.jsonl")
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-\(UUID().uuidString).json").path
        try "{\"event\":\"fetched\"}\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: RecordingError.notARecording(path, "its first line is not a tokendash recording header")) {
            try Recording.read(path)
        }
        #expect(RecordingError.notARecording(path, "x").description == "\(path):1: not a tokendash recording: x")
        #expect(throws: RecordingError.self) { try RecordingWriter(path: "/nonexistent/dir/r.jsonl") }
    }

    @Test func aWatchRecordingTicksEachSecondInReplay() throws {
        let base = RecordingTimeBase(start: Self.t0)
        let header = RecordingHeader(
            state: DashboardState(
                consumerID: "trip-0001", driverID: "vehicle-0001", now: Self.t0, backend: "b",
                faultsAvailable: false),
            members: [:], command: ["tokendash", "watch"], source: "watch", tokendash: "t", ticks: false, start: Self.t0
        )
        let event = ProviderEvent(
            time: Self.t0.addingTimeInterval(3.5), provider: .consumer, id: "trip-0001", kind: .forcedRefresh)
        let encoder = JSONEncoder()
        let data =
            try encoder.encode(header) + Data("\n".utf8)
            + encoder.encode(RecordedLine(.event(event), at: event.time, base: base)) + Data("\n".utf8)
        let recording = try Recording.parse(data, name: "w.jsonl")
        let timeline = ReplayTimeline(recording, initial: header.initialState())
        #expect(timeline.actions.map(\.time) == [1, 2, 3, 3.5].map { Self.t0.addingTimeInterval($0) })
        #expect(recording.events == [event])
    }

    // MARK: numbers from outside

    /// A watch recording's header and `lines` (JSON text), as a file would hold them.
    func recordingFile(_ lines: [String], start: Double? = nil) throws -> Data {
        let header = RecordingHeader(
            state: DashboardState(
                consumerID: "trip-0001", driverID: "vehicle-0001", now: Self.t0, backend: "b",
                faultsAvailable: false),
            members: [:], command: ["tokendash", "watch"], source: "watch", tokendash: "t", ticks: false, start: Self.t0
        )
        var text = String(decoding: try JSONEncoder().encode(header), as: UTF8.self)
        // Up to the next key or the end: JSONEncoder's key order differs from run to run, and
        // "start" last once swallowed the closing brace (a flaky "not a recording header").
        if let start { text = text.replacing(/"start":[^,}]*/, with: "\"start\":\(start)") }
        return Data(([text] + lines).joined(separator: "\n").utf8 + [UInt8(ascii: "\n")])
    }

    static let hit =
        #"{"t":1,"type":"event","event":{"time":1,"provider":"consumer","id":"trip-0001","event":"cache_hit","count":COUNT,"at":60}}"#

    @Test func aCountPastWhatARunReachesEndsTheReadingThereWithItsLine() throws {
        // 2^63-1 hits twice overflowed the replay's sums (FleetStatistics), a crash.
        let line = Self.hit.replacingOccurrences(of: "COUNT", with: "9223372036854775807")
        let recording = try Recording.parse(
            try recordingFile([Self.hit.replacingOccurrences(of: "COUNT", with: "3"), line, line]), name: "r.jsonl")
        #expect(recording.events.count == 1)
        #expect(
            recording.problems == [
                "r.jsonl:3: count 9223372036854775807 is outside 0...\(1 << 50); showing the 1 action before it"
            ])
    }

    @Test func aTimeFarFromTheStartEndsTheReadingThere() throws {
        let recording = try Recording.parse(try recordingFile([#"{"t":-1e300,"type":"tick"}"#]), name: "r.jsonl")
        #expect(recording.actions.isEmpty)
        #expect(
            recording.problems == [
                "r.jsonl:2: t -1e+300 is not within 10 years of the recording's start; showing the 0 actions before it"
            ])
        let resize = try Recording.parse(
            try recordingFile([#"{"t":1,"type":"resize","width":100000,"height":30}"#]), name: "r.jsonl")
        #expect(resize.problems.first?.hasPrefix("r.jsonl:2: width 100000 is outside 1...2000") == true)
    }

    @Test func aStartNoClockCanHoldIsNoRecording() throws {
        #expect(
            throws: RecordingError.badHeader("r.jsonl", "start 1e+300 is not a time between the years 1901 and 2100")
        ) {
            try Recording.parse(try recordingFile([], start: 1e300), name: "r.jsonl")
        }
        #expect(RecordingError.badHeader("r.jsonl", "x").description == "r.jsonl:1: x")
    }

    @Test func aWatchRecordingsLongSilenceTicksForAnHourAtMost() throws {
        // One event ten years on made 3e8 ticks before: memory a replay never had.
        let late =
            #"{"t":300000000,"type":"event","event":{"time":300000000,"provider":"consumer","id":"trip-0001","event":"forced_refresh"}}"#
        let recording = try Recording.parse(try recordingFile([late]), name: "r.jsonl")
        let timeline = ReplayTimeline(recording, initial: recording.header.initialState())
        #expect(timeline.actions.count == 3601)
        #expect(timeline.actions.last?.time == Self.t0.addingTimeInterval(300_000_000))
    }
}

/// The replay's keys in the key table and the reducer.
@Suite(.timeLimit(.minutes(15))) struct ReplayKeyTests {
    static func replaying() -> DashboardState {
        var s = DashboardState(
            consumerID: "trip-0001", driverID: "vehicle-0001", now: RecordReplayTests.t0, backend: "b",
            faultsAvailable: true)
        s.replay = ReplayStatus(
            position: RecordReplayTests.t0, start: RecordReplayTests.t0,
            end: RecordReplayTests.t0.addingTimeInterval(60))
        return s
    }

    /// At 80 columns the theme's name gives way, never the replay's position.
    @Test func theReplayPositionShowsAt80Columns() {
        var s = Self.replaying()
        s.backend = "embedded on 127.0.0.1:41377"
        s.timeZone = RecordReplayTests.utc
        let header = Renderer.render(s, width: 80, height: 24).lines[0]
        #expect(header.contains("replay 08:00:00 ▶ ×1 0:00/1:00"), "\(header)")
        #expect(!header.contains("theme:"))
        #expect(Renderer.render(s, width: 160, height: 48).lines[0].contains("theme: default"))
    }

    @Test func replayKeysMoveThePlaybackAndLiveKeysAreRefusedWithAReason() {
        var s = Self.replaying()
        #expect(Reducer.reduce(&s, .key(.character(" "))) == [.replay(.togglePause)])
        #expect(Reducer.reduce(&s, .key(.character("p"))) == [.replay(.togglePause)])
        #expect(Reducer.reduce(&s, .key(.left)) == [.replay(.seek(-10))])
        #expect(Reducer.reduce(&s, .key(.right)) == [.replay(.seek(10))])
        #expect(Reducer.reduce(&s, .key(.home)) == [.replay(.toStart)])
        #expect(Reducer.reduce(&s, .key(.end)) == [.replay(.toEnd)])
        #expect(Reducer.reduce(&s, .key(.character("."))) == [.replay(.step)])
        #expect(Reducer.reduce(&s, .key(.character(">"))) == [.replay(.nextSpeed)])
        for key in ["r", "R", "t", "v", "f", "c", "i"] {
            #expect(Reducer.reduce(&s, .key(.character(Character(key)))) == [], "\(key)")
            #expect(s.message == "\(key) acts on the live providers: not in a replay")
            #expect(s.overlay == .none)
        }
        // Viewing keys still work.
        _ = Reducer.reduce(&s, .key(.character("x")))
        #expect(s.reveal)
    }

    @Test func recordedKeysActAsTheyDidLiveWithoutTheirEffects() {
        var s = Self.replaying()
        #expect(Reducer.reduce(&s, .recorded(.key(.character("p")))) == [])
        #expect(s.paused, "a recorded p paused the SDKs then; it does not pause the replay")
        #expect(Reducer.reduce(&s, .recorded(.key(.character("r")))) == [])
        #expect(s.message == nil)
        #expect(s.replay != nil)
        // The recording ends with its q: the replay goes on.
        #expect(Reducer.reduce(&s, .recorded(.key(.character("q")))) == [])
        #expect(Reducer.reduce(&s, .recorded(.key(.interrupt))) == [])
        #expect(!s.quitting)
        _ = Reducer.reduce(&s, .key(.character("q")))
        #expect(s.quitting)
    }

    @Test func theFooterAndHelpListReplayKeysOnlyInAReplay() {
        let live = KeyMap.standard.visible(fleet: false).map(\.label)
        let replay = KeyMap.standard.visible(fleet: false, replay: true).map(\.label)
        #expect(!live.contains("Space") && !live.contains("←"))
        #expect(replay.starts(with: ["Space", ".", "←", "→", "Home", "End", ">"]))
        #expect(!replay.contains("r") && !replay.contains("f") && !replay.contains("t"))
        #expect(KeyMap.standard.command(for: .left, fleet: false) == nil)
        var s = Self.replaying()
        s.timeZone = RecordReplayTests.utc
        let screen = Renderer.render(s, width: 100, height: 30).lines
        #expect(screen[0].contains("replay 08:00:00 ▶ ×1 0:00/1:00"), "\(screen[0])")
        let footer = screen.suffix(2).joined()
        #expect(
            footer.contains("Space Pause") && footer.contains("←/→ Seek") && footer.contains("Home/End Jump"),
            "\(footer)")
        #expect(!footer.contains("Refresh"))
    }
}
