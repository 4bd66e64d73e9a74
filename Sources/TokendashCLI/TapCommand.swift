import ArgumentParser
import Dashboard
import DashboardRuntime
import Foundation
import HTTPTransport
import LiveSession
import NetworkAddresses
import ProviderVocabulary
import ProxyKit
import Recording
import Redaction
import Settings
import Signals
import TapForwarding
import TapReading
import Terminal
import TokenMetrics
import TokenSignatures

/// `tokendash tap`: a reverse proxy in front of the apps' token backend. Every exchange is
/// forwarded as it came and read beside: whose token, today's verdict, and which IDs churn.
struct TapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tap",
        abstract: "Stand in front of your token backend and judge every real device's token fetch.",
        discussion: """
            Point the apps (or your load balancer) at --listen; every request goes to --upstream \
            unchanged and its answer comes back byte for byte. Requests on the token routes \
            (Google's sample routes, or --consumer-route/--driver-route) are read: kind and ID from \
            the route, the token judged by today's rules, fetches per ID per token lifetime.
            """)

    // The flags in titled groups, so `tokendash help tap` sorts them by what they are about; each is
    // read here under its old name, so the code reading them is unchanged.
    @OptionGroup(title: "Listen and forward") var forwarding: TapForwardingOptions
    var listen: String { forwarding.listen }
    var upstream: String? { forwarding.upstream }
    var cert: String? { forwarding.cert }
    var key: String? { forwarding.key }
    var upstreamKeepalive: Int { forwarding.givenUpstreamKeepalive ?? Setting.upstreamKeepalive.builtIn() }

    @OptionGroup(title: "Reading the tokens") var reading: TapReadingOptions
    var consumerRoutes: [String] { reading.consumerRoutes }
    var driverRoutes: [String] { reading.driverRoutes }
    var givenChurnLimit: Int? { reading.givenChurnLimit }
    var givenSolution: ProviderKind.Solution? { reading.givenSolution }
    var jwks: String? { reading.jwks }
    var providerID: String? { reading.providerID }

    @OptionGroup(title: "Output") var output: TapOutputOptions
    var watch: Bool { output.watch }
    var summary: Bool { output.summary }
    var reveal: Bool { output.reveal }
    var record: String? { output.record }
    var duration: Double? { output.duration }

    @OptionGroup(title: "The demo (no --upstream)") var demoLog: FleetEngineLogFlag

    var churnLimit: Int { givenChurnLimit ?? Setting.churnLimit.builtIn() }

    var solution: ProviderKind.Solution { givenSolution ?? Setting.solution.builtIn() }

    /// `--cacert`, `--insecure`, `--proxy`, `--proxy-tunnel`, `--no-proxy`: declared once with the
    /// dashboard's and `watch`'s; read here under their old names.
    @OptionGroup(title: "Transport") var transport: TransportOptions
    var caCertificates: String? { transport.caCertificates }
    var insecure: Bool { transport.insecure }
    var proxy: String? { transport.proxy }
    var proxyTunnel: Bool { transport.proxyTunnel }
    var noProxy: Bool { transport.noProxy }

    @OptionGroup(title: "Metrics") var metrics: MetricsOptions

    var listenAddress: (host: String, port: Int)? { HostPort(parsing: listen).map { ($0.host, $0.port) } }

    func routes() throws -> TapRoutes {
        do {
            return TapRoutes(
                try consumerRoutes.map { try RouteTemplate($0, role: .consumer) }
                    + driverRoutes.map { try RouteTemplate($0, role: .driver) })
        } catch { throw ValidationError("\(error)") }
    }

    func validate() throws {
        guard listenAddress != nil else { throw ValidationError("--listen must be HOST:PORT, e.g. 127.0.0.1:8088") }
        try Setting.churnLimit.check(churnLimit)
        try Setting.upstreamKeepalive.check(upstreamKeepalive)
        if let duration { try Setting.duration.check(duration) }
        if (cert == nil) != (key == nil) { throw ValidationError("give --cert and --key together") }
        if insecure, caCertificates != nil { throw ValidationError("give --cacert or --insecure, not both") }
        if summary, !watch { throw ValidationError("--summary needs --watch") }
        if demoLog.path != nil, upstream != nil {
            throw ValidationError("--fleet-engine-log writes the demo's Fleet Engine calls: give it without --upstream")
        }
        if noProxy, proxy != nil { throw ValidationError("give --proxy or --no-proxy, not both") }
        // The demo's upstream is on loopback, reached direct: only a given --proxy is judged then.
        if upstream != nil || proxy != nil {
            do { _ = try proxySettings() } catch { throw ValidationError(error.message) }
        }
        _ = try routes()
    }

    /// The proxy the upstream is reached through, by the backends' rules (`BackendOptions.proxySettings`).
    func proxySettings(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ProxyURLError)
        -> ProxySettings
    {
        try BackendOptions.proxySettings(proxy: proxy, noProxy: noProxy, tunnel: proxyTunnel, environment: environment)
    }

    static func say(_ line: String) { TokendashCLI.say(line, as: "tap") }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let environment = ProcessInfo.processInfo.environment
        try requireTerminal(environment)
        let teardown = Teardown()
        let tap = try await teardown.starting { try await start(environment, teardown: teardown) }
        announce(tap)
        let devices = tap.demo.map { demo in Task { [server = tap.server] in await demo.run(tap: server.baseURL) } }
        await teardown.add("demo devices") { _ in
            devices?.cancel()
            await devices?.value
        }
        let signals = SignalWatcher(watch ? [SIGINT, SIGTERM] : [SIGINT, SIGTERM, SIGHUP])
        if let dashboard = tap.dashboard {
            await dashboard.run(
                recorder: tap.recorder, duration: duration,
                backend: "tap \(address(tap)) → \(URLRedactor.redact(tap.upstreamText))",
                nextSignal: { await signals.next() })
        } else {
            await signals.end(after: duration)
        }
        await teardown.run(completed: true)
        if summary {
            let line = TapLineEncoder(reveal: reveal).churn(
                tap.analysis.churning(), limit: Double(churnLimit), exchanges: tap.analysis.exchangeCount,
                unread: tap.analysis.droppedCount)
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        if tap.analysis.droppedCount > 0 {
            Self.say("\(tap.analysis.droppedCount) exchanges were forwarded but not read (the reader fell behind)")
        }
    }

    /// The dashboard needs a terminal; `--watch` does not.
    func requireTerminal(_ environment: [String: String]) throws {
        if !watch, !hasDrawingTerminal(environment) {
            Self.say(
                "the dashboard needs a terminal (stdin and stdout a TTY, TERM not dumb); for scripts use `tokendash tap --watch`"
            )
            throw ExitCode(2)
        }
    }

    /// What runs while the tap does.
    struct RunningTap {
        let demo: TapDemo?
        let upstreamText: String
        let target: Upstream
        let reader: ExchangeReader
        let analysis: TapAnalysis
        let recorder: RecordingWriter?
        let dashboard: TapDashboard?
        let server: TapServer
    }

    /// Starts the tap's parts in order, each with its undoing added to `teardown`: the demo when
    /// there is no upstream, the upstream, the key set's client, the reading, the recording, the
    /// metrics endpoint, the listener. A part that fails says why in one line and exits.
    func start(_ environment: [String: String], teardown: Teardown) async throws -> RunningTap {
        let trust = BackendOptions.trust(insecure: insecure, caCertificates: caCertificates)
        let demo = try await startDemo(teardown)
        let upstreamText = upstream ?? demo?.baseURL.absoluteString ?? ""
        let target = try upstreamTarget(upstreamText, trust: trust, viaDemo: demo != nil)
        // Only a key set on the network needs a client (which must be shut down before it goes).
        let transport: HTTPClientTransport?
        do { transport = try jwks.map { _ in try HTTPClientTransport(trust: trust) } } catch {
            Self.say("\(error)")
            throw ExitCode(2)
        }
        await teardown.add("key set client") { _ in await transport?.shutdown() }
        let verifier = jwks.flatMap { jwks in
            transport.map { JWKSVerifier(keySet: KeySetLocation(argument: jwks), transport: $0) }
        }
        let reader = ExchangeReader(routes: try routes(), verifier: verifier, providerID: providerID)
        let tapMetrics = metrics.address == nil ? nil : TapMetrics()
        let analysis = TapAnalysis(reader: reader, churnLimit: Double(churnLimit), sinks: sinks(tapMetrics))
        let description = "tap \(listen) → \(URLRedactor.redact(upstreamText))"
        let dashboard =
            watch
            ? nil
            : TapDashboard(
                analysis: analysis, churnLimit: Double(churnLimit), solution: solution, backend: description,
                environment: environment)
        let recorder = try await startRecording(analysis, dashboard: dashboard, backend: description, teardown)
        // The forwarding's figures (upstream connections open and idle), shared by the listener and the metrics.
        let forwardingGauge = ForwardingGauge()
        do {
            let exporter = try await TapMetricsExporter.start(
                metrics, metrics: tapMetrics, analysis: analysis, forwarding: forwardingGauge)
            await teardown.add("metrics") { _ in await exporter?.stop() }
        } catch {
            Self.say("\(error)")
            throw ExitCode(2)
        }
        let server = try await startListening(target, analysis: analysis, gauge: forwardingGauge, teardown)
        return RunningTap(
            demo: demo, upstreamText: upstreamText, target: target, reader: reader, analysis: analysis,
            recorder: recorder, dashboard: dashboard, server: server)
    }

    /// No upstream: the demo, the embedded server behind the tap and simulated devices in front.
    func startDemo(_ teardown: Teardown) async throws -> TapDemo? {
        guard upstream == nil else { return nil }
        do {
            let demo = try await TapDemo.start(fleetEngineLog: demoLog.path)
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
    func upstreamTarget(_ text: String, trust: HTTPClientTransport.Trust, viaDemo: Bool) throws -> Upstream {
        do {
            let proxies = viaDemo ? .direct : try proxySettings()
            // A proxy's password and credential are secrets wherever a line may quote them (a 502, a watch line).
            proxies.secrets.forEach(SecretRedactor.register)
            return try Upstream(text, trust: trust, proxies: proxies)
        } catch {
            Self.say("\(error)")
            throw ExitCode(2)
        }
    }

    /// Where each exchange read goes besides the screen: `--watch`'s lines and the metrics.
    func sinks(_ tapMetrics: TapMetrics?) -> [@Sendable (TappedExchange) -> Void] {
        var sinks: [@Sendable (TappedExchange) -> Void] = []
        if watch {
            let encoder = TapLineEncoder(reveal: reveal)
            sinks.append { reading in FileHandle.standardOutput.write(Data((encoder.tapped(reading) + "\n").utf8)) }
        }
        if let tapMetrics { sinks.append(tapMetrics.record) }
        return sinks
    }

    /// `--record`'s file, and the reading's thread with it: the reading is drained, and the
    /// recording closed (or removed, when the tap never ran), as the tap stops.
    func startRecording(
        _ analysis: TapAnalysis, dashboard: TapDashboard?, backend: String, _ teardown: Teardown
    ) async throws -> RecordingWriter? {
        let recorder: RecordingWriter?
        do { recorder = try record.map(RecordingWriter.init(path:)) } catch {
            Self.say("\(error)")
            throw ExitCode(2)
        }
        let state = dashboard?.state ?? TapDashboard.firstState(solution: solution, backend: backend)
        recorder?.start(
            RecordingHeader(
                state: state, members: [solution.consumerKind: [], solution.driverKind: []],
                command: CommandLine.arguments, source: watch ? "watch" : "dashboard",
                tokendash: TokenDash.version, ticks: !watch, start: Date(),
                churnLimit: Double(churnLimit)))
        await teardown.add("recording") { completed in
            if completed {
                if let failure = recorder?.close() { Self.say(failure) }
            } else {
                recorder?.discard()
            }
        }
        // `watch` records the events themselves; the dashboard records what it applies (the loop does).
        let recording =
            watch
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
    func startListening(_ target: Upstream, analysis: TapAnalysis, gauge: ForwardingGauge, _ teardown: Teardown)
        async throws -> TapServer
    {
        do {
            let tls = try cert.map { try TapServer.tlsContext(certificate: $0, key: key ?? "") }
            guard let address = listenAddress else { throw ExitCode(2) }
            var limits = TapLimits()
            limits.upstreamKeepalive = upstreamKeepalive
            let server = try await TapServer.start(
                host: address.host, port: address.port, upstream: target, tls: tls, limits: limits, gauge: gauge,
                report: analysis.submit)
            await teardown.add("listener") { _ in await server.stop() }
            return server
        } catch let error as TapServer.StartError {
            Self.say(error.description)
            throw ExitCode(2)
        }
    }

    /// Where the tap listens: `--listen`, with the port bound when it asked for 0.
    func address(_ tap: RunningTap) -> String {
        listen.hasSuffix(":0") ? "\(listenAddress?.host ?? ""):\(tap.server.port)" : listen
    }

    /// Where the tap listens and what it forwards to; the routes it reads; the demo's devices.
    func announce(_ tap: RunningTap) {
        Self.say(
            "listening on \(cert == nil ? "http" : "https")://\(address(tap)), forwarding to \(URLRedactor.redact(tap.upstreamText))\(tap.target.proxy.map { " via proxy \($0.display)" } ?? "")"
        )
        if !watch {
            Self.say("reading routes: \(tap.reader.routes.templates.map(\.template).joined(separator: ", "))")
        }
        if tap.demo != nil {
            Self.say(
                "demo: the embedded server at \(tap.upstreamText) behind the tap; \(TapDemo.devices) simulated devices ask through it, \(TapDemo.careless) of them caching nothing"
            )
        }
    }
}
