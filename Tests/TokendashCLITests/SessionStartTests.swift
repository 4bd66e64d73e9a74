import Foundation
import LiveSession
import ProviderVocabulary
import Synchronization
import Testing

@testable import HeadlessCommands
@testable import TokendashCLI

/// The session's start from its plain value, with fake starters: no socket is opened, so its
/// failure paths run here, beside the end-to-end ones over loopback (SourceProviderSetupTests).
@Suite(.timeLimit(.minutes(15)))
struct SessionStartTests {
    struct NoPort: Error {}

    /// What the fakes did, in order.
    final class Steps: Sendable {
        private let steps = Mutex<[String]>([])
        func add(_ step: String) { steps.withLock { $0.append(step) } }
        var all: [String] { steps.withLock { $0 } }
    }

    /// The embedded server's fake: says it started and puts its stop on the undo, as the real one does.
    static func fakeServer(_ steps: Steps) -> BackendSession.ServerStarter {
        { _, undo in
            steps.add("server started")
            await undo.add("embedded server") { completed in steps.add(completed ? "server stopped" : "server undone") }
            return (nil, URL(string: "http://127.0.0.1:1")!)
        }
    }

    /// The server started, then a side's loopback proxy cannot: the server is undone before the
    /// proxy's error goes up. Without the start's undo, the server's stop never runs.
    @Test func aProxyThatFailsAfterTheServerStartedUndoesTheServer() async throws {
        let configuration = try BackendOptions.parse(["--consumer-source", "/nonexistent/TripProvider.swift"])
            .resolved(environment: [:])
        let steps = Steps()
        await #expect(throws: NoPort.self) {
            _ = try await BackendSession.start(
                configuration, startServer: Self.fakeServer(steps),
                startProxy: { _ in
                    steps.add("proxy refused")
                    throw NoPort()
                })
        }
        #expect(steps.all == ["server started", "proxy refused", "server undone"])
    }

    /// A run that started stops with the start's own steps, the last first: the server's stop,
    /// told that the run completed, then nothing left to run a second time.
    @Test func aFinishedRunStopsWithTheStartsOwnSteps() async throws {
        let configuration = try BackendOptions.parse(["--only", "driver"]).resolved(environment: [:])
        let steps = Steps()
        let session = try await BackendSession.start(configuration, startServer: Self.fakeServer(steps))
        #expect(steps.all == ["server started"])
        await session.stop()
        #expect(steps.all == ["server started", "server stopped"])
        await session.stop()
        #expect(steps.all == ["server started", "server stopped"])
    }

    /// A backend of the user's own starts no server, so nothing is there to undo.
    @Test func aUsersOwnBackendStartsNoServer() async throws {
        let configuration = try BackendOptions.parse([
            "--consumer-url", "https://api.example.com/token/{tripId}",
            "--driver-url", "https://api.example.com/token/{vehicleId}", "--consumer-source",
            "/nonexistent/TripProvider.swift",
        ]).resolved(environment: [:])
        #expect(!configuration.usesEmbeddedServer)
        let steps = Steps()
        await #expect(throws: NoPort.self) {
            _ = try await BackendSession.start(
                configuration, startServer: Self.fakeServer(steps), startProxy: { _ in throw NoPort() })
        }
        #expect(steps.all.isEmpty)
    }

    /// Flags (and a profile through them) resolve once into the value the start reads: the
    /// backend's endpoints, headers parsed, each side's IDs, the customer's files.
    @Test func theFlagsResolveIntoThePlainValueTheStartReads() throws {
        let configuration = try BackendOptions.parse([
            "--consumer-url", "https://api.example.com/token/{tripId}", "--header", "Cookie: session=abc",
            "--token-key", "access", "--trips", "3", "--only", "consumer", "--timeout", "7",
        ]).resolved(environment: [:])
        let endpoint = configuration.endpoint(.consumer, embeddedBase: nil)
        #expect(endpoint.urlTemplate == "https://api.example.com/token/{tripId}")
        #expect(endpoint.tokenKey == "access")
        #expect(endpoint.headers.map(\.name) == ["Cookie"])
        #expect(endpoint.timeout == 7)
        #expect(!endpoint.lifetimeChosen)
        #expect(configuration.roles == [.consumer])
        #expect(configuration.initialIDs[.consumer]?.count == 3)
        #expect(configuration.runningSDKs == 3)
        #expect(configuration.sources.isEmpty)
        let embedded = try BackendOptions.parse(["--driver-source", "A.java", "--driver-source", "B.java"])
            .resolved(environment: [:])
        #expect(embedded.sources[.driver] == .init(paths: ["A.java", "B.java"], className: nil))
        #expect(embedded.endpoint(.driver, embeddedBase: "http://127.0.0.1:9").lifetimeChosen)
    }
}
