import ArgumentParser
import DashboardRuntime
import EventLines
import Fleet
import FleetAuth
import Foundation
import LiveSession
import Pacing
import Settings
import Signals

/// Headless mode: every provider event as one JSON object per line on stdout, diagnostics on stderr.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print every provider event as a JSON line (no screen).")

    @OptionGroup var backend: BackendOptions
    @OptionGroup(title: "Metrics") var metrics: MetricsOptions

    @OptionGroup(title: "Config file") var config: ConfigOptions

    @Option(name: .customLong(Setting.duration.rawValue), parsing: .unconditional, help: Setting.duration.argumentHelp)
    var duration: Double?

    @Option(name: .customLong(Setting.callers.rawValue), parsing: .unconditional, help: Setting.callers.argumentHelp)
    var givenCallers: Int?
    var callers: Int { givenCallers ?? Setting.callers.builtIn() }

    @Flag(help: "Print a final JSON line with per-provider counts.")
    var summary = false

    @Flag(help: "Print whole tokens instead of redacted ones (error messages stay redacted).")
    var reveal = false

    @Option(help: "Print only these events, comma-separated (e.g. fetched,fetch_failed); --summary still counts all.")
    var events: String?

    @Option(
        help:
            "Also record every provider event to FILE (JSON lines; tokens as fingerprints and claims, never whole); `tokendash replay FILE` shows it."
    )
    var record: String?

    var shownEvents: Set<String>? {
        events.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
    }

    func validate() throws {
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

    func run() async throws {
        // A reader that goes away (`| head`) must end us quietly, not with SIGPIPE mid-line.
        signal(SIGPIPE, SIG_IGN)
        let (backend, _) = try config.resolve(self.backend, prefix: "tokendash watch")
        let signals = SignalWatcher()
        let recorder: RecordingWriter?
        do { recorder = try record.map(RecordingWriter.init(path:)) } catch {
            FileHandle.standardError.write(Data("tokendash watch: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let session: BackendSession
        do {
            session = try await BackendSession.start(backend)
        } catch let failure as SourceBuildFailure {
            // The compiler's own lines, file:line:col first, as an editor or CI reads them.
            for line in failure.lines {
                FileHandle.standardError.write(Data((SecretRedactor.redact(line) + "\n").utf8))
            }
            recorder?.discard()
            throw ExitCode(2)
        } catch {
            FileHandle.standardError.write(Data("tokendash watch: \(SecretRedactor.redact("\(error)"))\n".utf8))
            throw ExitCode(1)
        }
        if let server = session.server, let url = await server.baseURL {
            FileHandle.standardError.write(
                Data("tokendash watch: embedded token server on \(url.absoluteString)\n".utf8))
        } else {
            FileHandle.standardError.write(Data("tokendash watch: backend \(session.backendDescription)\n".utf8))
        }
        for note in session.sourceNotes { FileHandle.standardError.write(Data("tokendash watch: \(note)\n".utf8)) }
        let fleetEngine = session.fleetEngineDescription(sdks: backend.runningSDKs, asked: backend.fleetEngineInterval)
        FileHandle.standardError.write(Data("tokendash watch: \(fleetEngine)\n".utf8))
        if session.insecure {
            FileHandle.standardError.write(
                Data("tokendash watch: --insecure: the backend's TLS certificate is not verified\n".utf8))
        }
        let exporter: MetricsExporter?
        do {
            exporter = try await MetricsExporter.start(metrics, session: session, backend: backend, command: "watch")
        } catch {
            recorder?.discard()
            throw error
        }
        let insecure = session.insecure
        func marked(_ line: String) -> String { EventLineEncoder.marked(line, insecure: insecure) }
        let encoder = EventLineEncoder(reveal: reveal)
        let shown = shownEvents
        let stream = session.events.subscribe(buffer: 1 << 16)
        if let recorder { recorder.start(await session.recordingHeader(backend, source: "watch", ticks: false)) }
        let printer = Task { () -> [ProviderKind: ProviderCounters] in
            var counters: [ProviderKind: ProviderCounters] = [:]
            for await event in stream {
                counters[event.provider, default: ProviderCounters()].record(event)
                recorder?.record(event)
                if let shown, !shown.contains(event.name) { continue }
                // Unbuffered whole lines: a script reading the pipe sees each event as it happens.
                FileHandle.standardOutput.write(Data((marked(encoder.encode(event)) + "\n").utf8))
            }
            return counters
        }
        let ramp = backend.ramp
        let loops = session.runUpdateLoops(interval: backend.updateInterval, callers: callers, ramp: ramp)
        let rampReport = Task { await Self.reportRamp(ramp, session: session) }
        await signals.end(after: duration)
        loops.cancel()
        rampReport.cancel()
        await loops.value
        var started: [ProviderKind: (started: Int, sdks: Int)] = [:]
        for role in session.roles {
            let group = session.group(role)
            started[group.kind] = (await group.started, await group.count)
        }
        let (begun, total) = started.values.reduce((0, 0)) { ($0.0 + $1.started, $0.1 + $1.sdks) }
        if begun < total {
            FileHandle.standardError.write(
                Data(
                    "tokendash watch: ramp: \(total - begun) of \(total) SDKs had not made their first call when the run ended (--ramp \(String(format: "%g", backend.ramp.duration)) s); they are not judged\n"
                        .utf8))
        }
        // Judged before the server stops: a health check asks whether every SDK holds a token now.
        let now = Date()
        var missing: [(kind: ProviderKind, id: String, lastError: String?)] = []
        for role in session.roles { missing += await session.group(role).withoutValidToken(at: now) }
        await session.stop()
        await exporter?.stop()
        let counters = await printer.value
        if let failure = recorder?.close() {
            FileHandle.standardError.write(Data("tokendash watch: \(failure)\n".utf8))
        }
        if summary {
            FileHandle.standardOutput.write(
                Data(
                    (marked(
                        encoder.summary(
                            counters, kinds: session.solution.kinds.filter { session.roles.contains($0.role) },
                            started: started)) + "\n").utf8))
        }
        guard missing.isEmpty else {
            let first = missing[0]
            let cause = first.lastError.map { ": \($0)" } ?? ""
            let more = missing.count > 1 ? " (and \(missing.count - 1) more)" : ""
            FileHandle.standardError.write(
                Data(
                    "tokendash watch: \(first.kind.idNoun) \(first.id) ended without a valid token\(cause)\(more)\n"
                        .utf8))
            throw ExitCode(1)
        }
    }

    /// While a ramp spreads the first calls: what it will do; its pace whenever the backend's
    /// answers change it, and why; every 10 s how many SDKs have started and the Fleet Engine
    /// calls' pace; when all have started. After the ramp, the Fleet Engine calls' pace whenever
    /// it changes. All on stderr, as the other diagnostics.
    static func reportRamp(_ ramp: FleetRamp, session: BackendSession) async {
        let (_, total) = await session.startedSDKs()
        func say(_ line: String) { FileHandle.standardError.write(Data("tokendash watch: \(line)\n".utf8)) }
        var fleetEngineNews = PaceAnnouncer()
        _ = fleetEngineNews.isNews(session.pacing.fleetEngine.status)
        let rampRuns = ramp.spreads && total > 1
        if rampRuns {
            say(
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
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            // While the ramp runs, the Fleet Engine calls follow it; their pace is in its 10 s lines.
            if rampOver, session.fleetEngine != nil, fleetEngineNews.isNews(session.pacing.fleetEngine.status) {
                say("Fleet Engine calls: \(session.pacing.fleetEngine.status.summary("Fleet Engine"))")
            }
            guard !rampOver else { continue }
            let (started, _) = await session.startedSDKs()
            let elapsed = ContinuousClock.now - begin
            if started >= total {
                say("ramp: started \(started)/\(total) SDKs, all of them, after \(elapsed.components.seconds) s")
                rampOver = true
                continue
            }
            let pace = session.pacing.ramp.status
            if rampNews.isNews(pace) { say("ramp: \(pace.summary())") }
            let tens = Int(elapsed.components.seconds) / 10
            if tens > said {
                said = tens
                let calls =
                    session.fleetEngine == nil
                    ? "" : "; Fleet Engine calls \(session.pacing.fleetEngine.status.summary("Fleet Engine"))"
                say("ramp: started \(started)/\(total) SDKs at \(pace.summary())\(calls)")
            }
        }
    }
}
