import LiveSession
import Synchronization
import Testing

/// The one place a command's parts are stopped: in reverse order, once, and on a failed start too.
@Suite(.timeLimit(.minutes(15))) struct TeardownTests {
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test func stepsRunInReverseOrderOnceEach() async {
        let log = Log()
        let teardown = Teardown()
        for part in ["demo", "recording", "server"] {
            await teardown.add(part) { log.add("\(part) \($0 ? "closed" : "undone")") }
        }
        await teardown.run(completed: true)
        await teardown.run(completed: true)
        #expect(log.all == ["server closed", "recording closed", "demo closed"])
    }

    @Test func aPartThatFailsToStartUndoesThePartsBeforeIt() async {
        struct PortInUse: Error {}
        let log = Log()
        let teardown = Teardown()
        await teardown.add("demo") { log.add("demo \($0 ? "closed" : "undone")") }
        await teardown.add("recording") { log.add("recording \($0 ? "kept" : "removed")") }
        await #expect(throws: PortInUse.self) {
            try await teardown.starting { () async throws -> Int in throw PortInUse() }
        }
        #expect(log.all == ["recording removed", "demo undone"])
    }

    @Test func theObserverIsToldEachPartAsItsStopBegins() async {
        let log = Log()
        let teardown = Teardown(observer: { log.add("stopping \($0)") })
        await teardown.add("server") { _ in log.add("server stopped") }
        await teardown.add("metrics") { _ in log.add("metrics stopped") }
        await teardown.run(completed: true)
        #expect(log.all == ["stopping metrics", "metrics stopped", "stopping server", "server stopped"])
    }
}
