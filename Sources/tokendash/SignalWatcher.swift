import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into an awaitable event, so commands shut down cleanly instead of dying mid-write.
final class SignalWatcher: Sendable {
    // Holds the sources so they stay alive; only touched at init and deinit.
    private let sources: Mutex<[any DispatchSourceSignal]>
    private let stream: AsyncStream<Int32>

    init(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        sources = Mutex(signals.map { number in
            // The default action would kill the process before the handler runs.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        })
    }

    /// The next signal received.
    func next() async -> Int32? {
        for await number in stream { return number }
        return nil
    }

    deinit { sources.withLock { for s in $0 { s.cancel() } } }
}
