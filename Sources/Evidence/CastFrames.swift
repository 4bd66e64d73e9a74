import Dashboard
import Dispatch
import Foundation
import Synchronization
import UICore

/// A cast's frames and events, rendered a batch at a time on every core while the recording is
/// still being played. Rendering is most of a cast's cost and a frame depends on its state
/// alone; only the diff against the frame before and the event lines must run in order. So
/// moments queue here with the resizes and markers between them; a full batch is rendered in
/// the background while the next one fills, then encoded and written in order.
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
    private var rendering: Batch?
    private var encoder: ANSIFrameEncoder
    private var events = CastEvents()

    init(theme: Theme, batch: Int = defaultBatch) {
        encoder = ANSIFrameEncoder(theme: theme)
        self.batch = max(1, batch)
    }

    mutating func frame(_ state: DashboardState, width: Int, height: Int, at seconds: Double) {
        steps.append(.frame(pending.count, at: seconds))
        pending.append(Pending(state: state, width: width, height: height))
        if pending.count >= batch { startBatch() }
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
        startBatch()
        finishBatch()
        return events.text
    }

    /// Writes the batch being rendered (waiting for it), then starts rendering the one just filled.
    private mutating func startBatch() {
        finishBatch()
        rendering = Batch(frames: pending, steps: steps)
        pending = []
        steps = []
    }

    private mutating func finishBatch() {
        guard let batch = rendering else { return }
        rendering = nil
        let canvases = batch.canvases()
        for step in batch.steps {
            switch step {
            case .frame(let index, let seconds):
                let state = batch.frames[index].state
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

    /// One batch's frames, rendered in the background in as many runs as there are cores, each
    /// run in order with its own `RenderMemo`.
    final class Batch: Sendable {
        let frames: [Pending]
        let steps: [Step]
        private let done = DispatchGroup()
        private let rendered: Mutex<[Canvas]>

        init(frames: [Pending], steps: [Step]) {
            self.frames = frames
            self.steps = steps
            rendered = Mutex([Canvas](repeating: Canvas(width: 0, height: 0), count: frames.count))
            guard !frames.isEmpty else { return }
            let runs = min(frames.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
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

        func canvases() -> [Canvas] {
            done.wait()
            return rendered.withLock { $0 }
        }
    }
}
