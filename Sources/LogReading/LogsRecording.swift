import Foundation
import JSONValues
import Redaction

/// `tokendash logs EXPORT --record FILE`: what the logs screen plays, kept as a recording that
/// `replay`, `report` and `replay --to-cast` take as they take a session's.
///
/// The file is itself an export: a header line, each counted entry as one Cloud Logging
/// `LogEntry` a line (only the fields tokendash reads: `insertId`, `logName`, `timestamp`,
/// `severity`, `labels`, the payload's `@type`, `request.header` and `errorResponse`), and a last
/// line with what the read skipped and could not name. So `tokendash logs`, jq or fleet-debugger
/// read it too (the two other lines are no `LogEntry`), and it is a fraction of the export: a
/// vehicle's location and route are not in it. Error messages are redacted, as on screen.
public enum LogsRecording {
    /// The first line's `format`, as every recording's (`RecordingHeader.formatName`).
    public static let headerPrefix = #"{"format":"tokendash-recording""#
    public static let trailerPrefix = #"{"event":"logs_read""#

    /// `command` already redacted (`CommandLineRedactor`).
    public static func headerLine(tokendash: String, command: [String], inputs: [String]) -> String {
        var line = headerPrefix + #","version":1,"source":"logs","tokendash":"#
        JSONStringWriter.append(tokendash, to: &line)
        line += #","command":"# + list(command) + #","inputs":"# + list(inputs) + "}"
        return line
    }

    public static func trailerLine(_ reader: ExportReader) -> String {
        trailerPrefix + #","entries":\#(reader.tally.entries),"skipped":"#
            + LogSummary.counts(Dictionary(uniqueKeysWithValues: reader.skipped.map { ($0.key.rawValue, $0.value) }))
            + #","unknown":{"types":"# + LogSummary.counts(reader.unknownTypes.counts) + #","fields":"#
            + LogSummary.counts(reader.unknownFields.counts) + "}}"
    }

    /// One counted entry as a `LogEntry` line, its time to the microsecond.
    public static func line(_ entry: LogEntry) -> String {
        var fields: [(String, String)] = []
        if let insertID = entry.insertID { fields.append(("insertId", LogSummary.string(insertID))) }
        if let method = entry.method {
            fields.append(("logName", LogSummary.string("projects/-/logs/fleetengine.googleapis.com%2F" + method)))
        }
        fields.append(("timestamp", LogSummary.string(entry.time.microsecondDescription)))
        if let severity = entry.severity { fields.append(("severity", LogSummary.string(severity))) }
        var labels: [LoggedIDKind: [String]] = [:]
        for id in entry.ids { labels[id.kind, default: []].append(id.id) }
        fields.append(
            (
                "labels",
                LogSummary.object(
                    LoggedIDKind.allCases.compactMap { kind in
                        labels[kind].map { ("\(kind.rawValue)_id", LogSummary.string($0.joined(separator: ","))) }
                    })
            ))
        var payload: [(String, String)] = []
        if let type = entry.payloadType { payload.append(("@type", LogSummary.string(type))) }
        if let header = entry.header {
            let values: [(String, String?)] = [
                ("sdkVersion", header.sdkVersion), ("osVersion", header.osVersion), ("platform", header.platform),
                ("sdkType", header.sdkType), ("deviceModel", header.deviceModel),
                ("manufacturer", header.manufacturer), ("mapsSdkVersion", header.mapsSDKVersion),
                ("navSdkVersion", header.navSDKVersion),
            ]
            let kept = values.compactMap { name, value in value.map { (name, LogSummary.string($0)) } }
            payload.append(("request", LogSummary.object([("header", LogSummary.object(kept))])))
        }
        if let error = entry.error {
            var response = [("code", LogSummary.string(error.code))]
            if let status = error.httpStatus { response.append(("httpStatusCode", String(status))) }
            if let message = error.message {
                response.append(("message", LogSummary.string(SecretRedactor.redact(message))))
            }
            payload.append(("errorResponse", LogSummary.object(response)))
        }
        fields.append(("jsonPayload", LogSummary.object(payload)))
        return LogSummary.object(fields)
    }

    static func list(_ items: [String]) -> String { "[" + items.map(LogSummary.string).joined(separator: ",") + "]" }

    /// What the last line says of the read: its skipped entries and unknown names, by name.
    public struct Trailer: Sendable, Equatable {
        public var entries = 0
        public var skipped: [SkipReason: Int] = [:]
        public var unknownTypes: [String: Int] = [:]
        public var unknownFields: [String: Int] = [:]

        /// Nil when the line is not a logs recording's last line.
        public init?(_ line: [UInt8]) {
            guard let value = try? JSONValue.decode(Data(line)), case .object(let object) = value,
                LogKeys.text(object["event"]) == "logs_read"
            else { return nil }
            entries = Int(LogKeys.text(object["entries"]) ?? "") ?? 0
            skipped = Dictionary(
                uniqueKeysWithValues: Self.counts(object["skipped"]).compactMap { name, count in
                    SkipReason(rawValue: name).map { ($0, count) }
                })
            unknownTypes = Self.counts(LogKeys.path(object["unknown"], "types"))
            unknownFields = Self.counts(LogKeys.path(object["unknown"], "fields"))
        }

        static func counts(_ value: JSONValue?) -> [String: Int] {
            guard case .object(let object)? = value else { return [:] }
            var counts: [String: Int] = [:]
            for member in object { counts[member.key] = Int(LogKeys.text(member.value) ?? "") ?? 0 }
            return counts
        }
    }
}

extension LogInstant {
    /// RFC 3339 in UTC to the microsecond ("2024-05-01T10:00:00.123456Z"): a recording's times
    /// play back exactly as read.
    public var microsecondDescription: String {
        let text = description
        let micros = ((microseconds % 1_000_000) + 1_000_000) % 1_000_000
        let digits = String(micros)
        return text.dropLast(5) + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
    }
}

/// A logs recording's bytes as an export: its header and last lines blanked to spaces (white
/// space between entries, so every line keeps its number for `FILE:LINE`) and kept aside.
/// A class: `ExportReader` wraps the source it is given by value after its first chunk, and the
/// lines set aside must be read from the one the caller holds.
public final class LogsRecordingSource<Inner: ByteChunkSource>: ByteChunkSource {
    private var inner: Inner
    /// The header line and the last line, as read (each at most `maxKept` bytes).
    public private(set) var header: [UInt8]?
    public private(set) var trailer: [UInt8]?
    static var maxKept: Int { 1 << 20 }

    private let prefixes = [Array(LogsRecording.headerPrefix.utf8), Array(LogsRecording.trailerPrefix.utf8)]
    /// Bytes at a line's start that may yet begin one of `prefixes`; nil inside a line.
    private var lineStart: [UInt8]? = []
    /// The line being blanked and which prefix began it.
    private var blanking: (kept: [UInt8], which: Int)?

    public init(_ inner: Inner) { self.inner = inner }

    public func next() throws(ChunkSourceError) -> [UInt8]? {
        guard let chunk = try inner.next() else {
            // A last line held back while it could still begin a prefix is an entry's start: given back.
            if let held = lineStart, !held.isEmpty {
                lineStart = nil
                return held
            }
            if blanking != nil { finishBlanking() }
            return nil
        }
        var out: [UInt8] = []
        out.reserveCapacity(chunk.count)
        var index = chunk.startIndex
        while index < chunk.endIndex {
            // Inside an entry's line (almost every byte): copied whole up to its newline.
            guard blanking == nil, lineStart == nil else {
                take(chunk[index], into: &out)
                index += 1
                continue
            }
            guard let newline = chunk[index...].firstIndex(of: UInt8(ascii: "\n")) else {
                out += chunk[index...]
                break
            }
            out += chunk[index...newline]
            lineStart = []
            index = newline + 1
        }
        return out
    }

    /// One byte of a line being blanked, or of a line's start (which may yet begin a prefix).
    private func take(_ byte: UInt8, into out: inout [UInt8]) {
        if blanking != nil {
            if byte == UInt8(ascii: "\n") {
                finishBlanking()
                lineStart = []
                out.append(byte)
            } else {
                if let count = blanking?.kept.count, count < Self.maxKept { blanking?.kept.append(byte) }
                out.append(UInt8(ascii: " "))
            }
            return
        }
        var held = lineStart ?? []
        held.append(byte)
        if let which = prefixes.firstIndex(where: { $0.starts(with: held) }) {
            if held.count == prefixes[which].count {
                blanking = (held, which)
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: held.count))
                lineStart = nil
            } else {
                lineStart = held
            }
            return
        }
        out.append(contentsOf: held)
        lineStart = byte == UInt8(ascii: "\n") ? [] : nil
    }

    private func finishBlanking() {
        guard let (kept, which) = blanking else { return }
        if which == 0 { header = header ?? kept } else { trailer = kept }
        blanking = nil
    }
}
