import Dashboard
import Fleet
import FleetTables
import Recording
import UICore

/// What a recording becomes outside tokendash, and how it reaches its file: the module's whole
/// surface but for the live dashboard's `LiveCast`, so the cast's and the page's many parts can
/// change without touching a caller.
public enum RecordingEvidence {
    /// `replay --to-cast`: the recording as an asciicast (`RecordingCast`). `shell` is the header's
    /// `$SHELL`; `marks` makes a watcher's fleet-table marks (`TapTableMarks.maker` for a tapped
    /// session), so the cast's fleet tables carry the columns the live dashboard showed.
    public static func cast(
        _ recording: Recording, theme: Theme, idleTimeLimit: Double? = nil, shell: String? = nil,
        marks: (@Sendable () -> any FleetTableMarks)? = nil
    ) -> String {
        var options = RecordingCast.Options(theme: theme, idleTimeLimit: idleTimeLimit)
        if let shell { options.shell = shell }
        options.marks = marks
        return RecordingCast.make(recording, options: options)
    }

    /// `report`: the self-contained HTML page (`HTMLReport`); `name` is the recording's file as the
    /// page cites it.
    public static func report(
        _ recording: Recording, theme: Theme, name: String, version: String,
        marks: (@Sendable () -> any FleetTableMarks)? = nil
    ) -> String {
        HTMLReport.make(recording, theme: theme, name: name, version: version, marks: marks)
    }

    /// `text` written to `path` whole, or an error (one line, `cannot write PATH: why`) and nothing there.
    public static func write(_ text: String, to path: String) throws {
        try EvidenceFile.write(text, to: path)
    }
}
