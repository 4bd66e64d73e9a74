import Dashboard
import Fleet
import FleetTables
import Foundation
import Recording
import RecordingFormat
import UICore

/// A recording as an asciicast (`tokendash replay REC --to-cast OUT.cast`): the recording played
/// through as the replay plays it (`ReplayTimeline.walk`), a frame rendered from the state after
/// each moment, and what changed sent as ANSI at that moment's time; resizes as `"r"` events,
/// and `CastMarkers`' labels as `"m"` markers after the frame they belong to.
enum RecordingCast {
    /// The size of a cast whose recording never says its terminal's (one `watch` made).
    static let defaultSize = (width: 160, height: 48)

    struct Options: Sendable {
        var theme: Theme
        var idleTimeLimit: Double?
        var title: String?
        var term = "xterm-256color"
        var shell = "/bin/sh"
        /// Makes a watcher's fleet-table marks (`TapTableMarks.maker` for a tapped session), so the
        /// cast's fleet tables carry the columns the live dashboard showed.
        var marks: (@Sendable () -> any FleetTableMarks)?
        /// Frames rendered together (`CastFrames`); the cast is the same whatever it is.
        var batch = CastFrames.defaultBatch

        init(theme: Theme, idleTimeLimit: Double? = nil, title: String? = nil) {
            self.theme = theme
            self.idleTimeLimit = idleTimeLimit
            self.title = title
        }
    }

    /// The whole cast, header first.
    static func make(_ recording: Recording, options: Options) -> String {
        let initial = recording.header.initialState(theme: options.theme, themeNames: [options.theme.name])
        let timeline = ReplayTimeline(recording, initial: initial, marks: options.marks)
        var size = FrameSize(recording, fallback: defaultSize)
        let header = CastHeader(
            width: size.width, height: size.height, start: recording.start, idleTimeLimit: options.idleTimeLimit,
            title: options.title ?? title(recording.header), term: options.term, shell: options.shell,
            theme: options.theme)
        var frames = CastFrames(theme: options.theme, batch: options.batch)
        var markers = CastMarkers()
        var pacer = FramePacer<DashboardState>()
        let start = recording.start
        timeline.walk { time, state, actions in
            let seconds = time.timeIntervalSince(start)
            // A moment held back is drawn first, at the tenth of a second it was due, at the size it had.
            if let (held, due) = pacer.heldDue(before: seconds) {
                frames.frame(held, width: size.width, height: size.height, at: due)
            }
            var labels: [String] = []
            var resized = false
            // By index: a `for` over the slice copied each action (a token, its claims) to look at it.
            for index in actions.indices {
                if size.follow(actions[index].action) { resized = true }
                labels += markers.labels(for: actions[index].action)
            }
            if resized { frames.resize(width: size.width, height: size.height, at: seconds) }
            // A marker and a resize keep their exact moment; other moments at most ten a second.
            if pacer.drawsNow(at: seconds, forced: resized || !labels.isEmpty, state: state) {
                frames.frame(state, width: size.width, height: size.height, at: seconds)
            }
            for label in labels { frames.marker(label, at: seconds) }
        }
        if let (held, due) = pacer.heldDue(before: .infinity) {
            frames.frame(held, width: size.width, height: size.height, at: due)
        }
        return header.line + frames.text()
    }

    /// At most ten frames a second, as the live loop draws them: a moment within a tenth of a
    /// second of the last frame is held, and drawn at the tenth it was due unless a later moment
    /// replaces it first. The last state always reaches the cast.
    struct FramePacer<State> {
        static var interval: Double { 0.1 }
        private var lastDrawn = -Double.infinity
        private var held: State?

        /// The state held back, and when to draw it, once `seconds` is past its due time.
        mutating func heldDue(before seconds: Double) -> (State, Double)? {
            let due = lastDrawn + Self.interval
            guard let state = held, seconds >= due else { return nil }
            held = nil
            lastDrawn = due
            return (state, due)
        }

        /// Whether the moment at `seconds` is drawn now; otherwise it is held (replacing any held).
        mutating func drawsNow(at seconds: Double, forced: Bool, state: State) -> Bool {
            if forced || seconds >= lastDrawn + Self.interval {
                held = nil
                lastDrawn = seconds
                return true
            }
            held = state
            return false
        }
    }

    /// `tokendash dashboard, 2026-11-26T23:00:00Z, trip-0001 and vehicle-0001`.
    static func title(_ header: RecordingHeader) -> String {
        "tokendash \(header.source), \(header.startedAt), \(header.consumerID) and \(header.driverID)"
    }
}
