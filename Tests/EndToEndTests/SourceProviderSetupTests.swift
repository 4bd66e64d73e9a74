import Foundation
import HTTPTransport
import LiveSession
import ProviderEvents
import ProviderProxy
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing

@testable import HeadlessCommands
@testable import TokendashCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The customer's providers' setup, in-process: its failure paths leave nothing running.
@Suite(.timeLimit(.minutes(15))) struct SourceProviderSetupTests {
    /// Whether something accepts connections on 127.0.0.1:`port`.
    func listening(_ port: Int) -> Bool {
        let fd = socket(AF_INET, SocketConstants.stream, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    /// Both sides run the customer's classes; the second side's loopback proxy fails to start.
    /// The first side's proxy is stopped before the error goes up (it once kept listening: nothing
    /// held it any more, so nothing could stop it).
    @Test func aProxyThatFailsToStartStopsTheOnesBeforeIt() async throws {
        let options = try BackendOptions.parse([
            "--consumer-source", "/nonexistent/ConsumerProvider.swift",
            "--driver-source", "/nonexistent/DriverProvider.swift",
        ]).resolved()
        let events = EventBroadcaster()
        let started = Mutex<[ProviderProxy]>([])
        struct NoPort: Error {}
        await #expect(throws: NoPort.self) {
            _ = try await SourceProviderSetup.prepare(
                options, server: nil, solution: .onDemand, events: events, upstream: .direct,
                startProxy: { kind in
                    guard started.withLock({ $0.isEmpty }) else { throw NoPort() }
                    let proxy = try await ProviderProxy.start(kind: kind, upstream: .direct, events: events)
                    started.withLock { $0.append(proxy) }
                    return proxy
                })
        }
        let first = try #require(started.withLock { $0.first })
        #expect(!listening(first.port), "the first side's proxy was stopped")
    }

    /// What a session's start reported listening, each URL's port.
    final class Listeners: Sendable {
        private let urls = Mutex<[URL]>([])
        func add(_ url: URL) { urls.withLock { $0.append(url) } }
        var ports: [Int] { urls.withLock { $0.compactMap(\.port) } }
    }

    /// `watch` with a provider file that cannot be read: the start fails with the file's line, and
    /// the embedded server and the loopback proxy it started before reading the file are stopped.
    @Test func aSourceThatDoesNotBuildStopsTheServerAndProxyStartedBeforeIt() async throws {
        let options = try BackendOptions.parse(["--driver-source", "/nonexistent/DriverProvider.swift"]).resolved()
        let listeners = Listeners()
        await #expect(throws: SourceBuildFailure.self) {
            _ = try await BackendSession.start(options, listening: listeners.add)
        }
        #expect(listeners.ports.count == 2, "the embedded server and the driver side's proxy were started")
        for port in listeners.ports { #expect(!listening(port), "127.0.0.1:\(port) was stopped") }
    }

    /// The embedded server started, then a loopback proxy fails to start: the server is stopped
    /// before the proxy's error goes up.
    @Test func aProxyThatFailsAfterTheServerStartedStopsTheServer() async throws {
        let options = try BackendOptions.parse(["--consumer-source", "/nonexistent/ConsumerProvider.swift"]).resolved()
        let listeners = Listeners()
        struct NoPort: Error {}
        await #expect(throws: NoPort.self) {
            _ = try await BackendSession.start(
                options, listening: listeners.add, startProxy: { _ in throw NoPort() })
        }
        let server = try #require(listeners.ports.first, "the embedded server was started")
        #expect(listeners.ports.count == 1)
        #expect(!listening(server), "the embedded server was stopped")
    }

    /// The dashboard keeps an unbuilt provider as a pane with its error: the start succeeds, and the
    /// session's stop stops the server and the proxy.
    @Test func anUnbuiltSourceKeptRunsUntilTheSessionStops() async throws {
        let options = try BackendOptions.parse(["--driver-source", "/nonexistent/DriverProvider.swift"]).resolved()
        let listeners = Listeners()
        let session = try await BackendSession.start(options, keepUnbuilt: true, listening: listeners.add)
        #expect(listeners.ports.count == 2)
        for port in listeners.ports { #expect(listening(port), "127.0.0.1:\(port) serves while the session runs") }
        #expect(session.sourceLabels[.driver] == "your code: DriverProvider.swift")
        await session.stop()
        for port in listeners.ports { #expect(!listening(port), "127.0.0.1:\(port) was stopped with the session") }
    }

    /// A build's first line in the pane names the file by its name, so a narrow pane keeps the reason.
    @Test func thePaneNamesTheFailingFileByItsName() {
        #expect(
            SourceProviderSetup.paneWording("/home/me/app/DoesNotCompile.m:10:29: error: expected ';'")
                == "DoesNotCompile.m:10:29: error: expected ';'")
        #expect(
            SourceProviderSetup.paneWording("swiftc failed: no such file") == "swiftc failed: no such file")
    }
}
