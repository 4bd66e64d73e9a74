import Dashboard
import Dispatch
import Foundation
import Synchronization
import UICore

/// A cast's frames and events, made in three stages that overlap: the recording is played on
/// the caller's thread; a full batch of frames is rendered on every core (a frame depends on its
/// state alone); and rendered batches are encoded, in order, on one background queue (only the
/// diff against the frame before and the event lines must run in order). Encoding was a fifth
/// of a cast's work, and while it ran on the caller's thread neither of the others could go on.
struct CastFrames {
    /// Frames held in a batch: enough to keep both cores busy, few enough that the held
    /// canvases (60 KiB each at 160x48) and states stay small.
    static let defaultBatch = 64
    private let batch: Int

    enum Step: Sendable {
        case frame(Int, at: Double)
        case resize(width: Int, height: Int, at: Double)
        case marker(String, at: Double)
    }

    struct Pending: Sendable {
        var state: DashboardState
        var width: Int
        var height: Int
    }

    private var pending: [Pending] = []
    private var steps: [Step] = []
    private let writer: Writer

    init(theme: Theme, batch: Int = defaultBatch) {
        writer = Writer(theme: theme)
        self.batch = max(1, batch)
    }

    mutating func frame(_ state: DashboardState, width: Int, height: Int, at seconds: Double) {
        steps.append(.frame(pending.count, at: seconds))
        pending.append(Pending(state: state, width: width, height: height))
        if pending.count >= batch { submit() }
    }

    /// The terminal's new size; the next frame is drawn whole.
    mutating func resize(width: Int, height: Int, at seconds: Double) {
        steps.append(.resize(width: width, height: height, at: seconds))
    }

    mutating func marker(_ label: String, at seconds: Double) {
        steps.append(.marker(label, at: seconds))
    }

    /// Every event line, once the last moment is in.
    mutating func text() -> String {
        submit()
        return writer.finish()
    }

    /// Starts rendering what is pending, and queues its encoding after the batches before it.
    private mutating func submit() {
        guard !steps.isEmpty else { return }
        writer.write(pending, steps: steps)
        pending = []
        steps = []
    }

    /// Encodes rendered batches in the order they were written, on a serial queue of its own.
    final class Writer: Sendable {
        /// Batches written and not yet encoded: the walk waits for room past this, so a slow
        /// encoder holds a few batches' states and canvases, not the whole recording's.
        static let inFlight = 3
        private let queue = DispatchQueue(label: "tokendash.cast.encode")
        private let room = DispatchSemaphore(value: inFlight)
        private let output: Mutex<Output>

        struct Output: Sendable {
            var encoder: ANSIFrameEncoder
            var events = CastEvents()

            mutating func encode(_ steps: [Step], frames: [Pending], canvases: [Canvas]) {
                for step in steps {
                    switch step {
                    case .frame(let index, let seconds):
                        let state = frames[index].state
                        encoder.setTheme(state.colorless ? state.theme.monochrome : state.theme)
                        events.output(encoder.encode(canvases[index]), at: seconds)
                    case .resize(let width, let height, let seconds):
                        events.resize(width: width, height: height, at: seconds)
                        encoder.invalidate()
                    case .marker(let label, let seconds):
                        events.marker(label, at: seconds)
                    }
                }
            }
        }

        init(theme: Theme) { output = Mutex(Output(encoder: ANSIFrameEncoder(theme: theme))) }

        func write(_ frames: [Pending], steps: [Step]) {
            room.wait()
            let batch = Batch(frames: frames)
            queue.async { [self] in
                let canvases = batch.canvases()
                output.withLock { $0.encode(steps, frames: frames, canvases: canvases) }
                room.signal()
            }
        }

        /// The event lines, once every batch written is encoded.
        func finish() -> String {
            queue.sync {}
            return output.withLock { $0.events.text }
        }
    }

    /// One batch's frames, rendered in the background in as many runs as there are cores, each
    /// run in order with its own `RenderMemo`.
    final class Batch: Sendable {
        let frames: [Pending]
        private let done = DispatchGroup()
        private let rendered: Mutex<[Canvas]>

        init(frames: [Pending]) {
            self.frames = frames
            rendered = Mutex([Canvas](repeating: Canvas(width: 0, height: 0), count: frames.count))
            guard !frames.isEmpty else { return }
            let runs = min(frames.count, Self.cores)
            done.enter()
            DispatchQueue.global().async { [self] in
                DispatchQueue.concurrentPerform(iterations: runs) { run in
                    let memo = RenderMemo()
                    let range = (frames.count * run / runs)..<(frames.count * (run + 1) / runs)
                    let canvases = range.map { i in
                        Renderer.render(frames[i].state, width: frames[i].width, height: frames[i].height, memo: memo)
                    }
                    rendered.withLock { $0.replaceSubrange(range, with: canvases) }
                }
                done.leave()
            }
        }

        /// Asked once: Foundation reads the cgroup's quota from its files at every ask, and a
        /// cast of an hour asked once a batch.
        static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

        func canvases() -> [Canvas] {
            done.wait()
            return rendered.withLock { $0 }
        }
    }
}
