/// Why an object of an export was not counted as a call: the keys of the summary's `skipped`.
/// Each skipped object also gets one `LogProblem` line naming where it was.
public enum SkipReason: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The same `insertId` again ("Cloud Logging removes duplicate entries with the same
    /// timestamp and insertId", LogEntry reference).
    case duplicate
    /// A later part of a split entry: the call is counted once, at its first part seen.
    case splitPart = "split_part"
    /// A restricted-use entry: its `parentInsertId` is the call.
    case restricted
    /// A LogEntry of another service (its `logName` or `resource.type` is not Fleet Engine's).
    case otherService = "other_service"
    /// A JSON object that is no LogEntry (none of insertId, logName, timestamp, jsonPayload).
    case notAnEntry = "not_an_entry"
    /// An entry without a timestamp, or with one that is not a time.
    case noTimestamp = "no_timestamp"
    /// Bytes that do not parse as JSON, or an object cut off by the next one.
    case garbled
    /// The input ends inside an entry (or before its array closes).
    case truncated
    /// An object larger than the reader's bound, skipped without being held.
    case oversized
    /// Text between entries that is not JSON at all.
    case notJSON = "not_json"
    /// A gzip stream that is corrupt or ends early.
    case gzip
    /// A file that could not be opened or read.
    case unreadable
    /// A file in a folder that is not an export file (not .json, .jsonl, .ndjson, or their .gz).
    case otherFile = "other_file"

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One problem, as one line: where ("FILE:LINE", or "FILE:byte N" inside a one-line array) and why.
public struct LogProblem: Sendable, Equatable, CustomStringConvertible {
    public var location: String
    public var reason: SkipReason
    public var detail: String

    public init(location: String, reason: SkipReason, detail: String) {
        self.location = location
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(location): \(reason.rawValue): \(detail)" }
}
