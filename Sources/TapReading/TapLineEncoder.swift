import EventLines
import Foundation
import JSONValues
import ProviderVocabulary
import Redaction

/// `tap --watch`'s JSON lines: a `tapped` line per exchange and, with `--summary`, a final `churn`
/// line, in the shape and redaction of `watch`'s (`EventLineEncoder`). The token is shown only
/// under `--reveal`; the fingerprint names it either way. Cookies and `Authorization` never get here.
public struct TapLineEncoder: Sendable {
    public var reveal: Bool
    public init(reveal: Bool = false) { self.reveal = reveal }

    public func tapped(_ reading: TappedExchange) -> String {
        var fields: [(String, JSONValue)] = [
            ("time", .string(EventLineEncoder.timestamp(reading.time))),
            ("event", .string("tapped")),
            ("provider", reading.kind.map { .string($0.rawValue) } ?? .null),
            ("id", reading.id.map(JSONValue.string) ?? .null),
            ("method", .string(reading.method)),
            ("http_status", .int(Int64(reading.status))),
            ("latency_ms", EventLineEncoder.milliseconds(reading.latency)),
            ("fingerprint", reading.fingerprint.map(JSONValue.string) ?? .null),
            ("verdict", .string(reading.verdict.rawValue)),
        ]
        if let token = reading.token {
            fields.append(("lifetime_s", .int(Int64(InputBounds.wholeSeconds(token.lifetime)))))
            if reveal { fields.append(("token", .string(token.token))) }
            if !token.warnings.isEmpty { fields.append(("warnings", .array(token.warnings.map(JSONValue.string)))) }
        }
        if let error = reading.error { fields.append(("error", .string(SecretRedactor.redact(error)))) }
        return EventLineEncoder.object(fields)
    }

    /// The IDs over the churn limit, most fetches per token first; `exchanges` read, and `unread`
    /// the ones forwarded but dropped unread (the reader fell behind), which no ID's count holds.
    public func churn(_ rows: [TapRow], limit: Double, exchanges: Int, unread: Int) -> String {
        let ids = rows.map { row -> JSONValue in
            var fields: JSONObject = [
                "provider": .string(row.kind.rawValue), "id": .string(row.id), "fetches": .int(Int64(row.fetches)),
                "tokens": .int(Int64(row.tokens)), "verdict": .string(row.verdict.rawValue),
            ]
            if let ratio = row.fetchesPerToken { fields["fetches_per_token"] = .double((ratio * 10).rounded() / 10) }
            if let lifetime = row.lifetime {
                fields["lifetime_s"] = .int(Int64(InputBounds.wholeSeconds(lifetime)))
            }
            return .object(fields)
        }
        return EventLineEncoder.object([
            ("event", .string("churn")), ("limit", .double(limit)), ("exchanges", .int(Int64(exchanges))),
            ("unread", .int(Int64(unread))), ("ids", .array(ids)),
        ])
    }
}
