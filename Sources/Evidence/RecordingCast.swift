import Dashboard
import Fleet
import Foundation
import Recording
import UICore

/// A recording as an asciicast (`tokendash replay REC --to-cast OUT.cast`): the recording played
/// through as the replay plays it (`ReplayTimeline.walk`), a frame rendered from the state after
/// each moment, and what changed sent as ANSI at that moment's time; resizes as `"r"` events,
/// and `CastMarkers`' labels as `"m"` markers after the frame they belong to.
public enum RecordingCast {
    /// The size of a cast whose recording never says its terminal's (one `watch` made).
    static let defaultSize = (width: 160, height: 48)

    public struct Options: Sendable {
        var theme: Theme
        var idleTimeLimit: Double?
        var title: String?
        var term = "xterm-256color"
        public var shell = "/bin/sh"
        /// Makes a watcher's fleet-table marks (`TapTableMarks.maker` for a tapped session), so the
        /// cast's fleet tables carry the columns the live dashboard showed.
        public var marks: (@Sendable () -> any FleetTableMarks)?

        public init(theme: Theme, idleTimeLimit: Double? = nil, title: String? = nil) {
            self.theme = theme
            self.idleTimeLimit = idleTimeLimit
            self.title = title
        }
    }

    /// The whole cast, header first.
    public static func make(_ recording: Recording, options: Options) -> String {
        let initial = recording.header.initialState(theme: options.theme, themeNames: [options.theme.name])
        let timeline = ReplayTimeline(recording, initial: initial, marks: options.marks)
        var size = FrameSize(recording, fallback: defaultSize)
        let header = CastHeader(
            width: size.width, height: size.height, start: recording.start, idleTimeLimit: options.idleTimeLimit,
            title: options.title ?? title(recording.header), term: options.term, shell: options.shell,
            theme: options.theme)
        var encoder = ANSIFrameEncoder(theme: options.theme)
        var events = CastEvents()
        var markers = CastMarkers()
        let start = recording.start
        timeline.walk { time, state, actions in
            let seconds = time.timeIntervalSince(start)
            var labels: [String] = []
            for timed in actions {
                if size.follow(timed.action) {
                    events.resize(width: size.width, height: size.height, at: seconds)
                    encoder.invalidate()
                }
                labels += markers.labels(for: timed.action)
            }
            encoder.setTheme(state.colorless ? state.theme.monochrome : state.theme)
            events.output(encoder.encode(Renderer.render(state, width: size.width, height: size.height)), at: seconds)
            for label in labels { events.marker(label, at: seconds) }
        }
        return header.line + events.text
    }

    /// `tokendash dashboard, 2026-11-26T23:00:00Z, trip-0001 and vehicle-0001`.
    static func title(_ header: RecordingHeader) -> String {
        "tokendash \(header.source), \(header.startedAt), \(header.consumerID) and \(header.driverID)"
    }
}
