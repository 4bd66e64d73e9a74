import ArgumentParser
import Dispatch
import Faults
import Foundation
import ProviderVocabulary
import Settings
import Signals
import Synchronization
import TokenServer

/// Runs the embedded backend on its own, for other apps, curl, or a second dashboard.
package struct ServeCommand: AsyncParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve Fleet Engine tokens over HTTP, as Google's sample backend does.",
        discussion: """
            Routes: GET /token/consumer/{tripId}, GET /token/driver/{vehicleId}, GET /.well-known/jwks.json,
            GET /healthz, GET /stats, GET /metrics (Prometheus), GET /faults, PUT /faults/{consumer|driver|both}/{fault}[?ms=N],
            DELETE /faults[/{target}]. Faults: \(Fault.names.joined(separator: ", ")).
            The first line on stdout is "listening on URL". Stops on Ctrl-C or SIGTERM.
            """)

    @Option(parsing: .unconditional, help: "Port to listen on; 0 picks a free one.")
    package var port: UInt16 = 0

    @Option(help: "Address to bind. Anything but loopback needs --allow-remote.")
    package var host = "127.0.0.1"

    @Flag(
        name: .customLong("allow-remote"),
        help: "Allow binding a non-loopback address: anyone who can connect gets signed tokens.")
    package var allowRemote = false

    // Tokens as long as Fleet Engine takes them, as Google's sample backend mints.
    @Option(parsing: .unconditional, help: ArgumentHelp("Token lifetime in seconds (\(Setting.lifetime.limit ?? ""))."))
    package var lifetime: Int = Setting.lifetimes.upperBound

    @Option(
        help:
            "Signing key: a PEM RSA private key (PKCS#1 or PKCS#8) or a service-account JSON key file, mode 600. Default: a new in-memory key."
    )
    package var key: String?

    @OptionGroup package var log: FleetEngineLogFlag

    package func validate() throws {
        try Setting.lifetime.check(lifetime)
        // A refused flag exits 64 before anything starts, as `--metrics 0.0.0.0:9464` does.
        guard TokenServerConfiguration.isLoopback(host) || allowRemote else {
            throw ValidationError(TokenServerError.remoteNotAllowed(host).description)
        }
    }

    package func run() async throws {
        // Ignore the signals before anything can take time, so an early Ctrl-C still shuts down cleanly.
        let termination = SignalWatcher()
        let configuration = TokenServerConfiguration(
            host: host, port: port, allowRemote: allowRemote, lifetime: TimeInterval(lifetime),
            signingKey: key.map { .file($0) } ?? .generated, fleetEngineLog: log.path)
        if !configuration.isLoopback && allowRemote {
            Self.stderr("warning: binding \(host): any host that can reach it can get tokens signed by this key")
        }
        let server: EmbeddedTokenServer
        let url: URL
        do {
            server = try await EmbeddedTokenServer(configuration: configuration)
            url = try await server.start()
        } catch {
            Self.stderr("tokendash serve: \(error)")
            throw ExitCode.failure
        }
        print("listening on \(url.absoluteString)")
        print("key id \(server.minter.key.keyID), issuer \(server.minter.issuer), lifetime \(lifetime) s")
        print("try: curl \(url.absoluteString)/token/consumer/trip-1")
        // Flush all streams: `stdout` itself is a C global Swift 6 will not touch.
        fflush(nil)
        let signal = await termination.next()
        Self.stderr("tokendash serve: \(signal == SIGTERM ? "SIGTERM" : "interrupt"), stopping")
        await server.stop()
        if let failure = server.fleetEngineLog?.close() {
            Self.stderr("tokendash serve: \(failure)")
            throw ExitCode.failure
        }
    }

    package static func stderr(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
