import Dashboard
import EventLines
import Foundation
import ProviderEvents
import ProviderVocabulary

/// Writes `s`'s snapshot: the screen as text and the last events as `watch` JSON lines, in one
/// file a support engineer can attach to a ticket. It goes next to the recording when there is
/// one (named after it), else into the current folder.
public struct SnapshotWriter: Sendable {
    public let directory: URL
    /// The file name's start: the recording's name without its extension, or `tokendash`.
    public let prefix: String
    /// The last events, oldest first: the live tail, or a replay's recorded events up to where it stands.
    public let events: @Sendable () -> [ProviderEvent]
    public let version: String

    public init(
        recording: URL?, events: @escaping @Sendable () -> [ProviderEvent], version: String,
        currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        directory = recording?.deletingLastPathComponent() ?? currentDirectory
        prefix = recording.map { $0.deletingPathExtension().lastPathComponent } ?? "tokendash"
        self.events = events
        self.version = version
    }

    public init(
        recording: URL?, tail: EventTail, version: String,
        currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        self.init(recording: recording, events: tail.events, version: version, currentDirectory: currentDirectory)
    }

    /// Writes the file and answers with a message saying where it went, or why it did not.
    public func write(_ request: SnapshotRequest) -> [Action] {
        write(screen: request.screen, width: request.width, at: request.at)
    }

    /// The same, for a screen already drawn: its rows and width.
    public func write(screen: [String], width: Int, at: Date) -> [Action] {
        let events = self.events()
        // Redacted always, as the screen text is: a snapshot is evidence, not a place for credentials.
        let encoder = EventLineEncoder(reveal: false)
        var text = "# \(version) snapshot at \(EventLineEncoder.timestamp(at)), tokens redacted\n"
        text += "# screen (\(width)x\(screen.count))\n"
        text += screen.joined(separator: "\n") + "\n"
        text += "# last \(events.count) events, as `tokendash watch` prints them\n"
        for event in events { text += encoder.encode(event) + "\n" }
        let url = freeName(for: at)
        do {
            try Data(text.utf8).write(to: url, options: .withoutOverwriting)
        } catch {
            return [.message("snapshot not written: \(url.path): \((error as NSError).localizedDescription)")]
        }
        return [.message("snapshot written to \(url.path) (screen and \(events.count) events)")]
    }

    /// `trace-snapshot-20261124-021503.txt`, then `…-2.txt` if two land in one second.
    func freeName(for time: Date) -> URL {
        let stamp = Self.stamp(time)
        var url = directory.appendingPathComponent("\(prefix)-snapshot-\(stamp).txt")
        var n = 2
        while FileManager.default.fileExists(atPath: url.path) {
            url = directory.appendingPathComponent("\(prefix)-snapshot-\(stamp)-\(n).txt")
            n += 1
        }
        return url
    }

    static func stamp(_ time: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: time)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(c.year ?? 0)\(two(c.month))\(two(c.day))-\(two(c.hour))\(two(c.minute))\(two(c.second))"
    }
}
