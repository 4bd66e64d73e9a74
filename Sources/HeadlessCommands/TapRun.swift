import ArgumentParser
import BuildInfo
import Foundation
import HTTPTransport
import LiveSession
import NetworkAddresses
import ProviderVocabulary
import ProxyKit
import RecordingFormat
import Redaction
import Signals
import TapForwarding
import TapReading
import TokenMetrics
import TokenSignatures

/// What the tap's flags resolve to, once checked (`tokendash tap`'s `validate`): a plain value,
/// so the tap starts from it as a session starts from `SessionConfiguration`.
package struct TapSettings: Sendable {
    package var listen: String
    package var host: String
    package var port: Int
    package var upstream: String?
    package var cert: String?
    package var key: String?
    package var upstreamKeepalive: Int
    package var routes: TapRoutes
    package var churnLimit: Int
    package var solution: ProviderKind.Solution
    package var jwks: String?
    package var providerID: String?
    package var watch: Bool
    package var summary: Bool
    package var reveal: Bool
    package var record: String?
    package var duration: Double?
    /// `--fleet-engine-log` of the demo (no `--upstream`).
    package var demoLog: String?
    package var trust: HTTPClientTransport.Trust
    /// The upstream's proxy by the backends' rules (flags, then the environment), read when the
    /// upstream is not the demo's own server on loopback.
    package var proxies: @Sendable () throws -> ProxySettings
    package var metrics: MetricsOptions

    package init(
        listen: String, host: String, port: Int, upstream: String?, cert: String?, key: String?, upstreamKeepalive: Int,
        routes: TapRoutes, churnLimit: Int, solution: ProviderKind.Solution, jwks: String?, providerID: String?,
        watch: Bool, summary: Bool, reveal: Bool, record: String?, duration: Double?, demoLog: String?,
        trust: HTTPClientTransport.Trust, proxies: @escaping @Sendable () throws -> ProxySettings,
        metrics: MetricsOptions
    ) {
        self.listen = listen
        self.host = host
        self.port = port
        self.upstream = upstream
        self.cert = cert
        self.key = key
        self.upstreamKeepalive = upstreamKeepalive
        self.routes = routes
        self.churnLimit = churnLimit
        self.solution = solution
        self.jwks = jwks
        self.providerID = providerID
        self.watch = watch
        self.summary = summary
        self.reveal = reveal
        self.record = record
        self.duration = duration
        self.demoLog = demoLog
        self.trust = trust
        self.proxies = proxies
        self.metrics = metrics
    }
}

/// The tap's screen, when it has one (the dashboard, in the command module): made once the
/// reading exists, so its event reader misses no exchange, and run until the tap stops.
package protocol TapScreen: Sendable {
    /// The `--record` file's header: the screen's first state.
    func recordingHeader(members: [ProviderKind: [String]], churnLimit: Double) -> RecordingHeader
    /// Runs until `nextSignal` or `duration`; `backend` is what the header says once the tap listens.
    func run(
        recorder: RecordingWriter?, duration: Double?, backend: String,
        nextSignal: @escaping @Sendable () async -> Int32?
    ) async
}

/// `tokendash tap` without a screen (`--watch`) and the parts under its dashboard: the demo, the
/// upstream, the reading, the recording, the metrics and the listener, started in order on one
/// `Teardown` and stopped by it in reverse, for a failed start and a finished run alike.
package struct TapRun: Sendable {
    package let settings: TapSettings

    package init(settings: TapSettings) { self.settings = settings }

    package static func say(_ line: String) { HeadlessCommands.say(line, as: "tap") }

    /// What runs while the tap does.
    package struct RunningTap: Sendable {
        package let demo: TapDemo?
        package let upstreamText: String
        package let target: Upstream
        package let reader: ExchangeReader
        package let analysis: TapAnalysis
        package let recorder: RecordingWriter?
        package let screen: (any TapScreen)?
        package let server: TapServer
    }

    /// Runs the tap until a signal or `--duration`: with `screen` (made from the reading and the
    /// tap's description) on the terminal, without it printing each exchange read.
    package func run(screen makeScreen: (@Sendable (TapAnalysis, String) -> any TapScreen)?) async throws {
        signal(SIGPIPE, SIG_IGN)
        let teardown = Teardown()
        let tap = try await teardown.starting { try await start(teardown: teardown, screen: makeScreen) }
        announce(tap)
        let devices = tap.demo.map { demo in Task { [server = tap.server] in await demo.run(tap: server.baseURL) } }
        await teardown.add("demo devices") { _ in
            devices?.cancel()
            await devices?.value
        }
        let signals = SignalWatcher(settings.watch ? [SIGINT, SIGTERM] : [SIGINT, SIGTERM, SIGHUP])
        if let screen = tap.screen {
            await screen.run(
                recorder: tap.recorder, duration: settings.duration,
                backend: "tap \(address(tap)) → \(URLRedactor.redact(tap.upstreamText))",
                nextSignal: { await signals.next() })
        } else {
            await signals.end(after: settings.duration)
        }
        await teardown.run(completed: true)
        if settings.summary {
            let line = TapLineEncoder(reveal: settings.reveal).churn(
                tap.analysis.churning(), limit: Double(settings.churnLimit), exchanges: tap.analysis.exchangeCount,
                unread: tap.analysis.droppedCount)
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        if tap.analysis.droppedCount > 0 {
            Self.say("\(tap.analysis.droppedCount) exchanges were forwarded but not read (the reader fell behind)")
        }
    }

    /// Starts the tap's parts in order, each with its undoing added to `teardown`: the demo when
    /// there is no upstream, the upstream, the key set's client, the reading, the recording, the
    /// metrics endpoint, the listener. A part that fails says why in one line and exits.
    package func start(teardown: Teardown, screen makeScreen: (@Sendable (TapAnalysis, String) -> any TapScreen)?)
        async throws -> RunningTap
    {
        let demo = try await startDemo(teardown)
        let upstreamText = settings.upstream ?? demo?.baseURL.absoluteString ?? ""
        let target = try upstreamTarget(upstreamText, viaDemo: demo != nil)
        // Only a key set on the network needs a client (which must be shut down before it goes).
        let transport: HTTPClientTransport?
        do { transport = try settings.jwks.map { _ in try HTTPClientTransport(trust: settings.trust) } } catch {
            Self.say("\(error)")
            throw ExitCode(2)
        }
        await teardown.add("key set client") { _ in await transport?.shutdown() }
        let verifier = settings.jwks.flatMap { jwks in
            transport.map { JWKSVerifier(keySet: KeySetLocation(argument: jwks), transport: $0) }
        }
        let reader = ExchangeReader(routes: settings.routes, verifier: verifier, providerID: settings.providerID)
        let tapMetrics = settings.metrics.address == nil ? nil : TapMetrics()
        let analysis = TapAnalysis(
            reader: reader, churnLimit: Double(settings.churnLimit), sinks: sinks(tapMetrics))
        let description = "tap \(settings.listen) → \(URLRedactor.redact(upstreamText))"
        let screen = makeScreen?(analysis, description)
        let recorder = try await startRecording(analysis, screen: screen, backend: description, teardown)
        // The forwarding's figures (upstream connections open and idle), shared by the listener and the metrics.
        let forwardingGauge = ForwardingGauge()
        do {
            let exporter = try await TapMetricsExporter.start(
                settings.metrics, metrics: tapMetrics, analysis: analysis, forwarding: forwardingGauge)
            await teardown.add("metrics") { _ in await exporter?.stop() }
        } catch {
            Self.say("\(error)")
            throw ExitCode(2)
        }
        let server = try await startListening(target, analysis: analysis, gauge: forwardingGauge, teardown)
        return RunningTap(
            demo: demo, upstreamText: upstreamText, target: target, reader: reader, analysis: analysis,
            recorder: recorder, screen: screen, server: server)
    }

    /// No upstream: the demo, the embedded server behind the tap and simulated devices in front.
    package func startDemo(_ teardown: Teardown) async throws -> TapDemo? {
        guard settings.upstream == nil else { return nil }
        do {
            let demo = try await TapDemo.start(fleetEngineLog: settings.demoLog)
            await teardown.add("demo") { _ in
                if let failure = await demo.stop() { Self.say(failure) }
            }
            return demo
        } catch {
            Self.say("demo: \(error)")
            throw ExitCode(1)
        }
    }

    /// `--upstream` (or the demo's server) and the proxy it is reached through: `--proxy` or the
    /// proxy variables, as the backends read them; the demo's server is on loopback, reached direct.
    package func upstreamTarget(_ text: String, viaDemo: Bool) throws -> Upstream {
        do {
            let proxies = viaDemo ? .direct : try settings.proxies()
            // A proxy's password and credential are secrets wherever a line may quote them (a 502, a watch line).
            proxies.secrets.forEach(SecretRedactor.register)
            return try Upstream(text, trust: settings.trust, proxies: proxies)
        } catch {
            Self.say("\(error)")
            throw ExitCode(2)
        }
    }

    /// Where each exchange read goes besides the screen: `--watch`'s lines and the metrics.
    package func sinks(_ tapMetrics: TapMetrics?) -> [@Sendable (TappedExchange) -> Void] {
        var sinks: [@Sendable (TappedExchange) -> Void] = []
        if settings.watch {
            let encoder = TapLineEncoder(reveal: settings.reveal)
            sinks.append { reading in FileHandle.standardOutput.write(Data((encoder.tapped(reading) + "\n").utf8)) }
        }
        if let tapMetrics { sinks.append(tapMetrics.record) }
        return sinks
    }

    /// The header of a screenless tap's recording: two fleets of IDs yet to be seen, as the
    /// dashboard's first state has them.
    package func plainHeader(members: [ProviderKind: [String]], backend: String) -> RecordingHeader {
        var header = RecordingHeader(
            solution: settings.solution, consumerID: "", driverID: "", members: members, backend: backend,
            command: CommandLine.arguments, source: "watch", tokendash: BuildInfo.version, ticks: false,
            start: Date())
        header.churnLimit = Double(settings.churnLimit)
        return header
    }

    /// `--record`'s file, and the reading's thread with it: the reading is drained, and the
    /// recording closed (or removed, when the tap never ran), as the tap stops.
    package func startRecording(
        _ analysis: TapAnalysis, screen: (any TapScreen)?, backend: String, _ teardown: Teardown
    ) async throws -> RecordingWriter? {
        let recorder: RecordingWriter?
        do { recorder = try settings.record.map(RecordingWriter.init(path:)) } catch {
            Self.say("\(error)")
            throw ExitCode(2)
        }
        let members = [settings.solution.consumerKind: [String](), settings.solution.driverKind: []]
        recorder?.start(
            screen?.recordingHeader(members: members, churnLimit: Double(settings.churnLimit))
                ?? plainHeader(members: members, backend: backend))
        await teardown.add("recording") { completed in
            if completed {
                if let failure = recorder?.close() { Self.say(failure) }
            } else {
                recorder?.discard()
            }
        }
        // Without a screen the events themselves are recorded; the dashboard records what it applies (its loop does).
        let recording =
            screen == nil
            ? recorder.map { recorder in
                let stream = analysis.events.subscribe(buffer: 1 << 16)
                return Task { for await event in stream { recorder.record(event) } }
            } : nil
        let reading = Task { await analysis.run() }
        await teardown.add("reading") { _ in
            analysis.finish()
            await reading.value
            analysis.events.finish()
            await recording?.value
        }
        return recorder
    }

    /// The tap's listener, forwarding to `target` and handing each exchange to the reading.
    package func startListening(_ target: Upstream, analysis: TapAnalysis, gauge: ForwardingGauge, _ teardown: Teardown)
        async throws -> TapServer
    {
        do {
            let tls = try settings.cert.map { try TapServer.tlsContext(certificate: $0, key: settings.key ?? "") }
            var limits = TapLimits()
            limits.upstreamKeepalive = settings.upstreamKeepalive
            let server = try await TapServer.start(
                host: settings.host, port: settings.port, upstream: target, tls: tls, limits: limits, gauge: gauge,
                report: analysis.submit)
            await teardown.add("listener") { _ in await server.stop() }
            return server
        } catch let error as TapServer.StartError {
            Self.say(error.description)
            throw ExitCode(2)
        }
    }

    /// Where the tap listens: `--listen`, with the port bound when it asked for 0.
    package func address(_ tap: RunningTap) -> String {
        settings.listen.hasSuffix(":0") ? "\(settings.host):\(tap.server.port)" : settings.listen
    }

    /// Where the tap listens and what it forwards to; the routes it reads; the demo's devices.
    package func announce(_ tap: RunningTap) {
        Self.say(
            "listening on \(settings.cert == nil ? "http" : "https")://\(address(tap)), forwarding to \(URLRedactor.redact(tap.upstreamText))\(tap.target.proxy.map { " via proxy \($0.display)" } ?? "")"
        )
        if !settings.watch {
            Self.say("reading routes: \(tap.reader.routes.templates.map(\.template).joined(separator: ", "))")
        }
        if tap.demo != nil {
            Self.say(
                "demo: the embedded server at \(tap.upstreamText) behind the tap; \(TapDemo.devices) simulated devices ask through it, \(TapDemo.careless) of them caching nothing"
            )
        }
    }
}
