import ProviderVocabulary
import Settings

/// The progress of a long `tokendash logs` read, for a terminal's stderr: bytes, entries and rate
/// (issue 60: a read of more than a few seconds says how far it is). Nothing for a short read, and
/// no more often than the eye can follow. Given the time since the read began, so it is tested
/// without a clock.
struct LogsProgress {
    /// A read shorter than this says nothing.
    static let delay: Duration = .seconds(2)
    /// Lines come no closer together than this.
    static let interval: Duration = .milliseconds(500)

    private var lastSaid: Duration?
    /// Whether a line was shown, so the command can clear it when the read ends.
    var saidAnything: Bool { lastSaid != nil }

    /// The line to show `elapsed` into the read, or nil when it is too early or too soon after the last.
    mutating func line(elapsed: Duration, bytes: Int, entries: Int) -> String? {
        guard elapsed >= Self.delay else { return nil }
        if let lastSaid, elapsed - lastSaid < Self.interval { return nil }
        lastSaid = elapsed
        let seconds = elapsed.timeInterval
        let megabytes = Double(bytes) / 1e6
        return "\(SettingText.grouped(Int(megabytes))) MB read, \(SettingText.grouped(entries)) entries, "
            + "\(SettingText.grouped(Int((megabytes / seconds).rounded()))) MB/s"
    }
}
