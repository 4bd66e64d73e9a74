import Foundation
import LogReading
import LogsScreen
import UICore

/// A logs recording as an asciicast (`tokendash replay LOGS.rec --to-cast OUT.cast`): the logs
/// screen playing the export from its start to its end at the replay's speed, ten frames a
/// second of the cast as the live screen draws them, each sent as what changed; a marker where
/// an ID's silence is first counted.
public enum LogsCast {
    static let frameInterval = Duration.milliseconds(100)

    /// `view` is the screen on the recording (`LogsView(player:)`); the cast plays it from the start.
    public static func make(
        _ view: LogsView, theme: Theme, width: Int = 160, height: Int = 48, idleTimeLimit: Double?, title: String,
        shell: String?
    ) -> String {
        var view = view
        let rows = LogsRenderer.tableRows(height: height)
        if var player = view.player {
            player.seek(to: player.from)
            player.play()
            view = view.playing(player, visibleRows: rows)
        }
        let header = header(width, height, view, idleTimeLimit, title, shell, theme)
        var encoder = ANSIFrameEncoder(theme: theme)
        var events = CastEvents()
        var silent = Set(view.summary.ids.filter { !$0.silences.isEmpty }.map(\.id))
        var seconds = 0.0
        // Without a player (an export of no calls) the loop draws the summary's one frame.
        while true {
            events.output(encoder.encode(LogsRenderer.render(view, width: width, height: height)), at: seconds)
            for tally in view.summary.ids where !tally.silences.isEmpty && !silent.contains(tally.id) {
                silent.insert(tally.id)
                events.marker("\(tally.id.kind.rawValue) \(tally.id.id) silent", at: seconds)
            }
            guard let playing = view.player, !playing.paused else { break }
            view.advance(by: frameInterval, visibleRows: rows)
            seconds += 0.1
        }
        return header + events.text
    }

    private static func header(
        _ width: Int, _ height: Int, _ view: LogsView, _ idleTimeLimit: Double?, _ title: String, _ shell: String?,
        _ theme: Theme
    ) -> String {
        let start =
            view.player.map { Date(timeIntervalSince1970: Double($0.from.microseconds) / 1e6) }
            ?? Date(timeIntervalSince1970: 0)
        return CastHeader(
            width: width, height: height, start: start, idleTimeLimit: idleTimeLimit, title: title,
            term: "xterm-256color", shell: shell ?? "/bin/sh", theme: theme
        ).line
    }
}
