import Dashboard
import Dispatch
import Foundation
import Synchronization
import UICore

/// A cast's frames and events, made in three stages that overlap: the recording is played on
/// the caller's thread; a full batch of frames is rendered and encoded on every core, each core
/// a run of frames in order (a frame depends on its state alone, and its ANSI on the frame before
/// it); and the batches' event lines are written, in order, on one background queue, which
/// encodes the first frame of each run against the last of the run before.
///
/// A run encodes each frame as soon as it is drawn, while both canvases are in the core's
/// cache, and draws the next frame over the one before: holding a batch of canvases for one
/// encoder to read back cold, then freeing them, was a fifth of a cast's CPU.
struct CastFrames {
    /// Frames held in a batch: enough to keep every core busy, few enough that the held states stay small.
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
        /// Drawn whole, not as changes: the terminal was resized since the frame before.
        var whole: Bool

        /// The colours the frame is drawn in.
        var theme: Theme { state.colorless ? state.theme.monochrome : state.theme }
    }

    private var pending: [Pending] = []
    private var steps: [Step] = []
    private var resized = false
    private let writer: Writer

    init(theme: Theme, batch: Int = defaultBatch) {
        writer = Writer(theme: theme)
        self.batch = max(1, batch)
    }

    mutating func frame(_ state: DashboardState, width: Int, height: Int, at seconds: Double) {
        steps.append(.frame(pending.count, at: seconds))
        pending.append(Pending(state: state, width: width, height: height, whole: resized))
        resized = false
        if pending.count >= batch { submit() }
    }

    /// The terminal's new size; the next frame is drawn whole.
    mutating func resize(width: Int, height: Int, at seconds: Double) {
        steps.append(.resize(width: width, height: height, at: seconds))
        resized = true
    }

    mutating func marker(_ label: String, at seconds: Double) {
        steps.append(.marker(label, at: seconds))
    }

    /// Every event line, once the last moment is in.
    mutating func text() -> String {
        submit()
        return writer.finish()
    }

    /// Starts rendering what is pending, and queues its event lines after the batches before it.
    private mutating func submit() {
        guard !steps.isEmpty else { return }
        writer.write(pending, steps: steps)
        pending = []
        steps = []
    }

    /// Writes rendered batches' event lines in the order they were written, on a serial queue of its own.
    final class Writer: Sendable {
        /// Batches written and not yet encoded: the walk waits for room past this, so a slow
        /// writer holds a few batches' states, not the whole recording's.
        static let inFlight = 3
        private let queue = DispatchQueue(label: "tokendash.cast.encode")
        private let room = DispatchSemaphore(value: inFlight)
        private let output: Mutex<Output>

        struct Output: Sendable {
            /// Encodes each run's first frame, against the terminal as the run before left it.
            var encoder: ANSIFrameEncoder
            var events = CastEvents()

            mutating func write(_ steps: [Step], frames: [Pending], rendered: [Batch.Frame]) {
                for step in steps {
                    switch step {
                    case .frame(let index, let seconds):
                        let frame = frames[index]
                        switch rendered[index] {
                        case .encoded(let text, let last):
                            events.output(text, at: seconds)
                            if let last { encoder.assume(last, theme: frame.theme) }
                        case .first(let canvas):
                            encoder.setTheme(frame.theme)
                            if frame.whole { encoder.invalidate() }
                            events.output(encoder.encode(canvas), at: seconds)
                        }
                    case .resize(let width, let height, let seconds):
                        events.resize(width: width, height: height, at: seconds)
                    case .marker(let label, let seconds):
                        events.marker(label, at: seconds)
                    }
                }
            }
        }

        /// The threads the batches' runs are drawn on.
        private let crew = RenderCrew(count: RenderCrew.cores)

        init(theme: Theme) { output = Mutex(Output(encoder: ANSIFrameEncoder(theme: theme))) }

        deinit { crew.end() }

        func write(_ frames: [Pending], steps: [Step]) {
            room.wait()
            let batch = Batch(frames: frames, crew: crew)
            queue.async { [self] in
                let rendered = batch.rendered()
                output.withLock { $0.write(steps, frames: frames, rendered: rendered) }
                room.signal()
            }
        }

        /// The event lines, once every batch written is encoded.
        func finish() -> String {
            queue.sync {}
            return output.withLock { $0.events.text }
        }
    }

    /// One batch's frames, rendered and encoded in the background in as many runs as there are
    /// cores, each run in order with its own `RenderMemo` and encoder.
    final class Batch: Sendable {
        /// A frame as its run leaves it.
        enum Frame: Sendable {
            /// A run's first frame, for the writer to encode against the run before's last.
            case first(Canvas)
            /// Encoded against the frame before; a run's last frame keeps its canvas, for the
            /// writer's encoder to go on from.
            case encoded(String, last: Canvas?)
        }

        let frames: [Pending]
        private let done = DispatchGroup()
        private let results: Mutex<[Frame]>

        init(frames: [Pending], crew: RenderCrew) {
            self.frames = frames
            results = Mutex([Frame](repeating: .encoded("", last: nil), count: frames.count))
            let runs = min(frames.count, crew.count)
            for run in 0..<runs {
                done.enter()
                crew.run(on: run) { [self] desk in
                    let range = (frames.count * run / runs)..<(frames.count * (run + 1) / runs)
                    let made = Self.run(frames[range], on: &desk)
                    results.withLock { $0.replaceSubrange(range, with: made) }
                    done.leave()
                }
            }
        }

        /// Renders `frames` in order, each encoded against the one before as soon as it is drawn,
        /// and the one before drawn over by the next.
        private static func run(_ frames: ArraySlice<Pending>, on desk: inout RenderCrew.Desk) -> [Frame] {
            guard let head = frames.first else { return [] }
            let memo = desk.memo
            let first = Renderer.render(
                head.state, width: head.width, height: head.height, memo: memo, reusing: desk.spare.take())
            var encoder = ANSIFrameEncoder(theme: head.theme)
            encoder.assume(first, theme: head.theme)
            var made: [Frame] = [.first(first)]
            made.reserveCapacity(frames.count)
            var spare: Canvas?
            for index in frames.indices.dropFirst() {
                let frame = frames[index]
                let canvas = Renderer.render(
                    frame.state, width: frame.width, height: frame.height, memo: memo, reusing: spare.take())
                encoder.setTheme(frame.theme)
                if frame.whole { encoder.invalidate() }
                let text = encoder.encode(canvas, replaced: &spare)
                made.append(.encoded(text, last: index == frames.indices.last ? canvas : nil))
            }
            desk.spare = spare
            return made
        }

        func rendered() -> [Frame] {
            done.wait()
            return results.withLock { $0 }
        }
    }

    /// The cast's own threads, one a core, each drawing the runs given it in turn. Not Dispatch's
    /// pool: a cast's caller is a Swift task, on a pool that is Dispatch's own and as wide as the
    /// machine has cores, and it blocks there while a batch renders. In some processes the runs
    /// were then left one thread between them (a cast a third slower, at 1.25 CPUs against 1.45).
    final class RenderCrew: Sendable {
        /// What a thread keeps from one run for the next: its memo, and a canvas to draw over.
        struct Desk {
            let memo = RenderMemo()
            var spare: Canvas?
        }

        private final class Member: Sendable {
            // The runs given this thread and not yet drawn.
            let runs = Mutex<[@Sendable (inout Desk) -> Void]>([])
            // Signalled once for each run given, and once more to end: woken with none waiting, the thread ends.
            let wake = DispatchSemaphore(value: 0)
        }

        private let members: [Member]
        var count: Int { members.count }

        /// Asked once: Foundation reads the cgroup's quota from its files at every ask, and a
        /// cast of an hour asked once a batch.
        static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

        init(count: Int) {
            members = (0..<max(1, count)).map { _ in Member() }
            for member in members {
                Thread {
                    var desk = Desk()
                    while true {
                        member.wake.wait()
                        let next = member.runs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                        guard let next else { return }
                        next(&desk)
                    }
                }.start()
            }
        }

        /// Draws `body` on thread `index`, after the runs given it before.
        func run(on index: Int, _ body: @escaping @Sendable (inout Desk) -> Void) {
            members[index % members.count].runs.withLock { $0.append(body) }
            members[index % members.count].wake.signal()
        }

        /// Each thread ends once the runs given it are drawn.
        func end() {
            for member in members { member.wake.signal() }
        }
    }
}
