import ArgumentParser
import Foundation
import HTTPTransport
import HeadlessCommands
import NetworkAddresses
import ProviderVocabulary
import ProxyKit
import Settings
import TapReading

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

    /// The flags as one checked value (`validate` has run).
    func settings() throws -> TapSettings {
        guard let address = listenAddress else { throw ValidationError("--listen must be HOST:PORT") }
        return TapSettings(
            listen: listen, host: address.host, port: address.port, upstream: upstream, cert: cert, key: key,
            upstreamKeepalive: upstreamKeepalive, routes: try routes(), churnLimit: churnLimit, solution: solution,
            jwks: jwks, providerID: providerID, watch: watch, summary: summary, reveal: reveal, record: record,
            duration: duration, demoLog: demoLog.path,
            trust: BackendOptions.trust(insecure: insecure, caCertificates: caCertificates),
            proxies: { [self] in try proxySettings() },
            metrics: metrics)
    }

    /// `--watch` runs the tap headless (HeadlessCommands' `TapRun`); without it the dashboard is its screen.
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let run = TapRun(settings: try settings())
        if watch { return try await run.run(screen: nil) }
        try requireTerminal(environment)
        let (churnLimit, solution) = (Double(churnLimit), solution)
        try await run.run(screen: { analysis, description in
            TapDashboard(
                analysis: analysis, churnLimit: churnLimit, solution: solution, backend: description,
                environment: environment)
        })
    }

    /// The dashboard needs a terminal; `--watch` does not.
    func requireTerminal(_ environment: [String: String]) throws {
        if !hasDrawingTerminal(environment) {
            TapRun.say(
                "the dashboard needs a terminal (stdin and stdout a TTY, TERM not dumb); for scripts use `tokendash tap --watch`"
            )
            throw ExitCode(2)
        }
    }
}
