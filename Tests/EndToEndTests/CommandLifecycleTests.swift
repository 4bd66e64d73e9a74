import DashboardRuntime
import Foundation
import KeyTable
import LiveSession
import Scenarios
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

/// Each command starts its parts in one place and stops them in the reverse order, on the run's
/// end and on a failed start alike: the recording is closed after the session whose events it
/// holds, the metrics endpoint closes before the session it reads, nothing outlives the stop.
/// Over loopback, with the embedded server, `--record`, `--cast` and `--metrics` really started.
@Suite(.timeLimit(.minutes(15))) struct CommandLifecycleTests {
    final class Order: Sendable {
        private let parts = Mutex<[String]>([])
        func add(_ part: String) { parts.withLock { $0.append(part) } }
        var all: [String] { parts.withLock { $0 } }
    }

    func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    func look() throws -> DashboardCommand.Look {
        let catalog = ThemeCatalog.standard(explicit: nil, environment: [:], executable: "tokendash")
        return DashboardCommand.Look(
            catalog: catalog, theme: try catalog.load(ThemeCatalog.initialThemeName(requested: nil, environment: [:])),
            keys: .standard)
    }

    @Test func aDashboardSessionStopsInTheReverseOrderOfItsStart() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appendingPathComponent("run.jsonl")
        let cast = folder.appendingPathComponent("run.cast")
        let command = try DashboardCommand.parse([
            "--record", recording.path, "--cast", cast.path, "--metrics", "127.0.0.1:0",
        ])
        let order = Order()
        let parts = Teardown(observer: order.add)
        _ = try await parts.starting {
            try await command.start(
                command.backend, look: try look(), scenarios: ScenarioCatalog(), startScenario: nil, environment: [:],
                parts: parts)
        }
        await parts.run(completed: true)
        #expect(
            order.all == [
                "update loops", "event source", "scenario", "metrics", "session", "embedded server", "transport",
                "evidence",
            ])
        // Closed after the session: the recording is kept, its header first.
        let lines = try String(contentsOf: recording, encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.contains("\"source\":\"dashboard\"") == true)
        // The cast, closed with no frame drawn (no screen here), leaves no file and no temporary one.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["run.jsonl"])
    }

    @Test func aWatchRunStopsInTheReverseOrderOfItsStart() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appendingPathComponent("run.jsonl")
        let command = try WatchCommand.parse(["--record", recording.path, "--metrics", "127.0.0.1:0"])
        let order = Order()
        let parts = Teardown(observer: order.add)
        let running = try await parts.starting { try await command.start(command.backend, parts: parts) }
        await parts.run(completed: true)
        #expect(
            order.all == [
                "ramp report", "update loops", "event printer", "metrics", "session", "embedded server", "transport",
                "recording",
            ])
        // The printer ended with the events' stream, so its counts are there to read.
        _ = await running.printer.cancellingValue
        #expect(FileManager.default.fileExists(atPath: recording.path))
    }

    /// `--metrics` on a port another listener holds: the session started before it is stopped
    /// (its server, its transport) and the recording removed, the last started first.
    @Test func aMetricsEndpointThatCannotListenUndoesTheSessionAndTheRecording() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appendingPathComponent("run.jsonl")
        let (holder, port) = try Self.heldPort()
        defer { close(holder) }
        let command = try WatchCommand.parse(["--record", recording.path, "--metrics", "127.0.0.1:\(port)"])
        let order = Order()
        let parts = Teardown(observer: order.add)
        await #expect(throws: (any Error).self) {
            _ = try await parts.starting { try await command.start(command.backend, parts: parts) }
        }
        #expect(order.all == ["session", "embedded server", "transport", "recording"])
        #expect(!FileManager.default.fileExists(atPath: recording.path), "a run that never began keeps no recording")
    }

    /// The tap (its demo: the embedded server behind it) with `--watch`, `--record` and `--metrics`:
    /// the listener stops first, so no exchange comes in while the reading drains into the recording.
    @Test func aTapRunStopsInTheReverseOrderOfItsStart() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appendingPathComponent("tap.jsonl")
        let command = try TapCommand.parse([
            "--watch", "--listen", "127.0.0.1:0", "--record", recording.path, "--metrics", "127.0.0.1:0",
        ])
        let run = TapRun(settings: try command.settings())
        let order = Order()
        let parts = Teardown(observer: order.add)
        _ = try await parts.starting { try await run.start(teardown: parts, screen: nil) }
        await parts.run(completed: true)
        #expect(order.all == ["listener", "metrics", "reading", "recording", "key set client", "demo"])
        let header = try String(contentsOf: recording, encoding: .utf8).split(separator: "\n").first ?? ""
        #expect(header.contains("\"source\":\"watch\"") && header.contains("\"churn_limit\":"))
    }

    /// The tap's `--listen` on a port another listener holds: every part started before it is
    /// undone, the last started first, and the recording of a tap that never listened is removed.
    @Test func aTapThatCannotListenUndoesItsPartsAndItsRecording() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recording = folder.appendingPathComponent("tap.jsonl")
        let (holder, port) = try Self.heldPort()
        defer { close(holder) }
        let command = try TapCommand.parse(["--watch", "--listen", "127.0.0.1:\(port)", "--record", recording.path])
        let run = TapRun(settings: try command.settings())
        let order = Order()
        let parts = Teardown(observer: order.add)
        await #expect(throws: (any Error).self) {
            _ = try await parts.starting { try await run.start(teardown: parts, screen: nil) }
        }
        #expect(order.all == ["metrics", "reading", "recording", "key set client", "demo"])
        #expect(!FileManager.default.fileExists(atPath: recording.path), "a tap that never listened keeps no recording")
    }

    /// A listening socket on 127.0.0.1 and its port, held until closed.
    static func heldPort() throws -> (Int32, Int) {
        struct NoSocket: Error {}
        let fd = socket(AF_INET, SocketConstants.stream, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && listen(fd, 1) == 0
                    && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw NoSocket() }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
