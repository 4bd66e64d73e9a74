import Redaction

/// `tokendash logs --watch`'s JSON lines: each counted entry as one `fleet_engine_call` line per
/// ID it names (so `jq 'select(.id == "v1")'` finds every call of v1, as on `watch`'s lines), and
/// after the read one `silence` line per silence. `time` first, then `kind` and `id`, as `watch`
/// puts `time`, `provider` and `id` first. An error's message, free text a backend wrote, is
/// redacted as every line tokendash prints.
public enum LoggedCallLines {
    /// The lines of one entry; one with null `kind` and `id` when its labels name no ID.
    public static func lines(_ entry: LogEntry) -> [String] {
        var tail: [(String, String)] = [
            ("event", string("fleet_engine_call")), ("source", string("log")),
            ("method", LogSummary.optional(entry.method)),
            ("status", string(entry.error?.code ?? "OK")),
            // Fleet Engine logs a status code only with an error (`ErrorResponseLog.httpStatusCode`).
            ("http_status", entry.error?.httpStatus.map(String.init) ?? "null"),
        ]
        if let message = entry.error?.message { tail.append(("message", string(SecretRedactor.redact(message)))) }
        if let header = entry.header, header.namesDevice {
            tail.append(("platform", LogSummary.optional(header.platform)))
            tail.append(("sdk_type", LogSummary.optional(header.sdkType)))
            tail.append(("sdk_version", LogSummary.optional(header.sdkVersion)))
        }
        if let insertID = entry.insertID { tail.append(("insert_id", string(insertID))) }
        let time = ("time", LogSummary.time(entry.time))
        guard !entry.ids.isEmpty else {
            return [LogSummary.object([time, ("kind", "null"), ("id", "null")] + tail)]
        }
        return entry.ids.map { id in
            LogSummary.object([time, ("kind", string(id.kind.rawValue)), ("id", string(id.id))] + tail)
        }
    }

    /// One line per silence of each ID, in the summary's ID order.
    public static func silenceLines(_ ids: [IDTally]) -> [String] {
        ids.flatMap { tally in
            tally.silences.map { silence in
                LogSummary.object([
                    ("time", LogSummary.time(silence.start)), ("kind", string(tally.id.kind.rawValue)),
                    ("id", string(tally.id.id)), ("event", string("silence")),
                    ("seconds", LogSummary.number(silence.seconds)),
                ])
            }
        }
    }

    /// With `--tap`: one `tap_finding` line per ID the join has a sentence for.
    public static func findingLines(_ summary: LogSummary) -> [String] {
        guard let tap = summary.tap else { return [] }
        return summary.ids.compactMap { tally in
            guard let finding = tap[tally.id], let sentence = finding.sentence else { return nil }
            return LogSummary.object([
                ("time", LogSummary.time(summary.to)), ("kind", string(tally.id.kind.rawValue)),
                ("id", string(tally.id.id)), ("event", string("tap_finding")),
                ("verdict", LogSummary.optional(finding.verdict?.rawValue)), ("finding", string(sentence)),
            ])
        }
    }

    private static func string(_ text: String) -> String { LogSummary.string(text) }
}
