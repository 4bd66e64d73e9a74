import ArgumentParser
import EventLines
import Fleet
import Foundation
import LiveSession
import Pacing
import ProviderEvents
import ProviderVocabulary
import RecordingFormat
import Redaction
import Settings
import Signals

/// Headless mode: every provider event as one JSON object per line on stdout, diagnostics on stderr.
package struct WatchCommand: AsyncParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print every provider event as a JSON line (no screen).")

    @OptionGroup package var backend: BackendOptions
    @OptionGroup(title: "Metrics") package var metrics: MetricsOptions

    @OptionGroup(title: "Config file") package var config: ConfigOptions

    @Option(name: .customLong(Setting.duration.rawValue), parsing: .unconditional, help: Setting.duration.argumentHelp)
    package var duration: Double?

    @Option(name: .customLong(Setting.callers.rawValue), parsing: .unconditional, help: Setting.callers.argumentHelp)
    package var givenCallers: Int?
    package var callers: Int { givenCallers ?? Setting.callers.builtIn() }

    @Flag(help: "Print a final JSON line with per-provider counts.")
    package var summary = false

    @Flag(help: "Print whole tokens instead of redacted ones (error messages stay redacted).")
    package var reveal = false

    @Option(help: "Print only these events, comma-separated (e.g. fetched,fetch_failed); --summary still counts all.")
    package var events: String?

    @Option(
        help:
            "Also record every provider event to FILE (JSON lines; tokens as fingerprints and claims, never whole); `tokendash replay FILE` shows it."
    )
    package var record: String?

    package var shownEvents: Set<String>? {
        events.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
    }

    package func validate() throws {
        if let duration { try Setting.duration.check(duration) }
        try Setting.callers.check(callers)
        if let shown = shownEvents {
            guard !shown.subtracting([""]).isEmpty else {
                throw ValidationError("--events needs at least one event name")
            }
            let unknown = shown.subtracting(ProviderEvent.allNames + [""]).sorted()
            guard unknown.isEmpty else {
                throw ValidationError(
                    "--events: unknown \(unknown.joined(separator: ", ")); known: \(ProviderEvent.allNames.joined(separator: ", "))"
                )
            }
        }
    }

    package func run() async throws {
        // A reader that goes away (`| head`) must end us quietly, not with SIGPIPE mid-line.
        signal(SIGPIPE, SIG_IGN)
        let (backend, _) = try config.resolve(self.backend, prefix: "tokendash watch")
        let signals = SignalWatcher()
        let parts = Teardown()
        let running = try await parts.starting { try await start(backend, parts: parts) }
        await signals.end(after: duration)
        // Calls still out at the run's end get their answer, or their timeout, before the verdict:
        // a slow answer is news. Nothing waits past that (the session's stop ends the transport,
        // and with it any call a provider would still hold).
        running.loops.cancel()
        await BackendSession.settle(running.loops, within: .seconds(backend.timeout))
        let session = running.session
        let verdict = await session.verdict(ramp: running.ramp, at: Date())
        let started = await session.startedByKind()
        await parts.run(completed: true)
        await running.loops.value
        let counters = await running.printer.value
        if summary {
            let kinds = session.solution.kinds.filter { session.roles.contains($0.role) }
            let line = EventLineEncoder(reveal: reveal).summary(counters, kinds: kinds, started: started)
            FileHandle.standardOutput.write(
                Data((EventLineEncoder.marked(line, insecure: session.insecure) + "\n").utf8))
        }
        // A run that asked nothing of some SDKs judged nothing of them: not a success either.
        for line in verdict.lines { Self.say(line) }
        if verdict.failed { throw ExitCode(1) }
    }

    package static func say(_ line: String) { HeadlessCommands.say(line, as: "watch") }

    /// What runs until the duration ends or a signal comes.
    package struct RunningWatch: Sendable {
        package let session: BackendSession
        package let ramp: FleetRamp
        package let loops: Task<Void, Never>
        package let printer: Task<[ProviderKind: ProviderCounters], Never>
    }

    /// The one place `watch`'s parts start, in order, each with its stop put on `parts`: `--record`,
    /// the session (its server and proxies), `--metrics`, the event printer, the update loops and
    /// the ramp's report. So the run's end stops them in the reverse order, and a part that fails
    /// to start undoes the ones before it, by the same steps.
    package func start(_ backend: BackendOptions, parts: Teardown) async throws -> RunningWatch {
        let recorder = try openRecorder()
        await parts.add("recording") { completed in
            guard completed else { return recorder?.discard() ?? () }
            if let failure = recorder?.close() { Self.say("\(failure)") }
        }
        let session = try await startSession(backend, observer: parts.observer)
        await parts.add("session") { _ in
            for failure in await session.stop() { Self.say(failure) }
        }
        await Self.announce(session, backend)
        if let exporter = try await MetricsExporter.start(metrics, session: session, backend: backend, command: "watch")
        {
            await parts.add("metrics") { _ in await exporter.stop() }
        }
        if let recorder { recorder.start(await session.recordingHeader(backend, source: "watch", ticks: false)) }
        let printer = printEvents(session, recorder: recorder)
        // The printer ends with the events' stream, its counts complete.
        await parts.add("event printer") { _ in
            session.events.finish()
            _ = await printer.value
        }
        let ramp = backend.ramp
        let loops = session.runUpdateLoops(interval: backend.updateInterval, callers: callers, ramp: ramp)
        await parts.add("update loops") { _ in loops.cancel() }
        let rampReport = Task { await Self.reportRamp(ramp, session: session, recorder: recorder) }
        await parts.add("ramp report") { _ in rampReport.cancel() }
        return RunningWatch(session: session, ramp: ramp, loops: loops, printer: printer)
    }

    package func openRecorder() throws -> RecordingWriter? {
        do { return try record.map(RecordingWriter.init(path:)) } catch {
            Self.say("\(error)")
            throw ExitCode(2)
        }
    }

    /// The session, or the reason it could not start: a provider's build errors as the compiler
    /// wrote them (exit 2), anything else in one line (exit 1).
    package func startSession(_ backend: BackendOptions, observer: @escaping @Sendable (String) -> Void) async throws
        -> BackendSession
    {
        do {
            return try await BackendSession.start(try backend.resolved(), observer: observer)
        } catch let failure as SourceBuildFailure {
            // The compiler's own lines, file:line:col first, as an editor or CI reads them.
            for line in failure.lines {
                FileHandle.standardError.write(Data((SecretRedactor.redact(line) + "\n").utf8))
            }
            throw ExitCode(2)
        } catch {
            Self.say(SecretRedactor.redact("\(error)"))
            throw ExitCode(1)
        }
    }

    /// Where tokens come from, what was built, whether Fleet Engine is called, and any loosened trust.
    package static func announce(_ session: BackendSession, _ backend: BackendOptions) async {
        if let server = session.server, let url = await server.baseURL {
            Self.say("embedded token server on \(url.absoluteString)")
        } else {
            Self.say("backend \(session.backendDescription)")
        }
        for note in session.sourceNotes { Self.say(note) }
        Self.say(session.fleetEngineDescription(sdks: backend.runningSDKs, asked: backend.fleetEngineInterval))
        if session.insecure { Self.say("--insecure: the backend's TLS certificate is not verified") }
    }

    /// Prints each event shown as a JSON line and records every one; ends with the stream, with the counts.
    package func printEvents(_ session: BackendSession, recorder: RecordingWriter?) -> Task<
        [ProviderKind: ProviderCounters], Never
    > {
        let (encoder, shown, insecure) = (EventLineEncoder(reveal: reveal), shownEvents, session.insecure)
        let stream = session.events.subscribe(buffer: 1 << 16)
        return Task {
            var counters: [ProviderKind: ProviderCounters] = [:]
            for await event in stream {
                counters[event.provider, default: ProviderCounters()].record(event)
                recorder?.record(event)
                if let shown, !shown.contains(event.name) { continue }
                // Unbuffered whole lines: a script reading the pipe sees each event as it happens.
                let line = EventLineEncoder.marked(encoder.encode(event), insecure: insecure)
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }
            return counters
        }
    }

    /// While a ramp spreads the first calls: what it will do; its pace whenever the backend's
    /// answers change it, and why; every 10 s how many SDKs have started and the Fleet Engine
    /// calls' pace; when all have started. After the ramp, the Fleet Engine calls' pace whenever
    /// it changes. All on stderr, as the other diagnostics. The ramp's pace is recorded whenever it
    /// changes, so a replay's ramp line shows it.
    package static func reportRamp(_ ramp: FleetRamp, session: BackendSession, recorder: RecordingWriter?) async {
        let (_, total) = await session.startedSDKs()
        var fleetEngineNews = PaceAnnouncer()
        _ = fleetEngineNews.isNews(session.pacing.fleetEngine.status)
        let rampRuns = ramp.spreads && total > 1
        if rampRuns {
            Self.say(
                String(
                    format:
                        "ramp: %d SDKs make their first calls over %.1f s at most (%.0f a second), slower if the backend's answers slow",
                    total, ramp.duration, Double(total) / ramp.duration))
        }
        let begin = ContinuousClock.now
        var said = 0
        var rampNews = PaceAnnouncer()
        _ = rampNews.isNews(session.pacing.ramp.status)
        var rampOver = !rampRuns
        var recorded: Pacer.Status?
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            // While the ramp runs, the Fleet Engine calls follow it; their pace is in its 10 s lines.
            if rampOver, session.fleetEngine != nil, fleetEngineNews.isNews(session.pacing.fleetEngine.status) {
                Self.say("Fleet Engine calls: \(session.pacing.fleetEngine.status.summary("Fleet Engine"))")
            }
            guard !rampOver else { continue }
            let (started, _) = await session.startedSDKs()
            let elapsed = ContinuousClock.now - begin
            if started >= total {
                Self.say("ramp: started \(started)/\(total) SDKs, all of them, after \(elapsed.components.seconds) s")
                rampOver = true
                if recorded != nil { recorder?.record(pace: nil, at: Date()) }
                continue
            }
            let pace = session.pacing.ramp.status
            if pace != recorded {
                recorded = pace
                recorder?.record(pace: pace, at: Date())
            }
            if rampNews.isNews(pace) { Self.say("ramp: \(pace.summary())") }
            let tens = Int(elapsed.components.seconds) / 10
            if tens > said {
                said = tens
                let calls =
                    session.fleetEngine == nil
                    ? "" : "; Fleet Engine calls \(session.pacing.fleetEngine.status.summary("Fleet Engine"))"
                Self.say("ramp: started \(started)/\(total) SDKs at \(pace.summary())\(calls)")
            }
        }
    }
}
