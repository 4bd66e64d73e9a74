import Foundation
import JSONValues
import ProviderEvents
import ProviderVocabulary
import Redaction

/// Turns provider events into the JSON lines `tokendash watch` prints: one object per event,
/// `time` first so a person can scan them, tokens redacted unless `reveal`.
public struct EventLineEncoder: Sendable {
    public var reveal: Bool
    public init(reveal: Bool = false) { self.reveal = reveal }

    public func encode(_ event: ProviderEvent) -> String {
        var fields: [(String, JSONValue)] = [
            ("time", .string(Self.timestamp(event.time))),
            ("provider", .string(event.provider.rawValue)),
            ("id", .string(event.id)),
            ("event", .string(event.name)),
        ]
        switch event.kind {
        case .cacheHit(let count, let expiresAt):
            // Hits come in batches: `count` of them, the last at `time`.
            fields.append(("count", .int(Int64(count))))
            fields.append(("expires_at", .string(Self.timestamp(expiresAt))))
        case .fetchStarted(let reason):
            fields.append(("reason", .string(reason.rawValue)))
        case .fetched(let token, let latency):
            fields.append(("expires_at", .string(Self.timestamp(token.expiresAt))))
            if let refreshAt = token.refreshAt { fields.append(("refresh_at", .string(Self.timestamp(refreshAt)))) }
            fields.append(("latency_ms", Self.milliseconds(latency)))
            fields.append(("token", .string(reveal ? token.token : TokenRedactor.redact(token.token))))
            fields.append(("fingerprint", .string(token.fingerprint)))
            if let shape = token.shape { fields.append(("shape", .string(shape))) }
            fields.append(("claims", token.jwt.claims))
            if let signature = token.signature {
                fields.append(("signature", .string(signature.level == .ok ? "ok" : signature.reason)))
            }
            if let skew = token.clockSkew {
                fields.append(("clock_skew_s", .int(Int64(InputBounds.wholeSeconds(skew.rounded())))))
            }
            if !token.warnings.isEmpty { fields.append(("warnings", .array(token.warnings.map(JSONValue.string)))) }
            if !token.notes.isEmpty { fields.append(("notes", .array(token.notes.map(JSONValue.string)))) }
        case .fetchFailed(let error, let latency):
            fields.append(("error", .string(error.description)))
            fields.append(("latency_ms", Self.milliseconds(latency)))
        case .idChanged(let from, let to):
            fields.append(("from", from.map(JSONValue.string) ?? .null))
            fields.append(("to", .string(to)))
        case .cacheDropped(let reason):
            fields.append(("reason", .string(reason)))
        case .expired(let at):
            fields.append(("expired_at", .string(Self.timestamp(at))))
        case .forcedRefresh:
            break
        case .backingOff(let until, let attempt):
            fields.append(("retry_at", .string(Self.timestamp(until))))
            fields.append(("attempt", .int(Int64(attempt))))
        case .fleetEngineCall(let answer):
            fields.append(("method", .string(answer.method.rawValue)))
            fields.append(("resource", .string(answer.resource)))
            fields.append(("http_status", answer.httpStatus.map { .int(Int64($0)) } ?? .null))
            fields.append(("status", .string(answer.status)))
            fields.append(("message", .string(answer.message)))
            fields.append(("latency_ms", Self.milliseconds(answer.latency)))
            fields.append(("fingerprint", .string(answer.fingerprint)))
            fields.append(("rules", .string(answer.rules.name)))
            if answer.refusedByProvider { fields.append(("refused_by_provider", .bool(true))) }
            fields.append(("verdict_disagrees", .bool(answer.verdictDisagrees)))
        case .breach(let breach):
            fields.append(("message", .string(breach.sentence)))
            if !breach.lines.isEmpty { fields.append(("lines", .array(breach.lines.map { .int(Int64($0)) }))) }
        case .printed(let text):
            fields.append(("text", .string(SecretRedactor.redact(text))))
        case .backendRequest(let exchange):
            fields.append(("way", .string(exchange.way.rawValue)))
            fields.append(("method", .string(exchange.method)))
            fields.append(
                (
                    exchange.way == .tunnel ? "host" : "url",
                    .string(SecretRedactor.redact(URLRedactor.redact(exchange.target)))
                ))
            if exchange.way == .http { fields.append(("status", exchange.status.map { .int(Int64($0)) } ?? .null)) }
            fields.append(("latency_ms", Self.milliseconds(exchange.latency)))
            fields.append(("bytes_up", .int(Int64(exchange.bytesUp))))
            fields.append(("bytes_down", .int(Int64(exchange.bytesDown))))
            if let fault = exchange.fault { fields.append(("fault", .string(fault))) }
            if let problem = exchange.problem { fields.append(("problem", .string(SecretRedactor.redact(problem)))) }
        }
        return Self.object(fields)
    }

    /// `line` with `"insecure":true` first when the backend's TLS is not verified: every line
    /// says so, not just the first, as a consumer may read any slice of the stream.
    public static func marked(_ line: String, insecure: Bool) -> String {
        insecure && line.hasPrefix("{\"") ? "{\"insecure\":true," + line.dropFirst() : line
    }

    /// The `--summary` line: per-provider counts of `kinds` (the solution that ran), each present
    /// even with no events; `started` (SDKs that made their first call, of `sdks`) and
    /// `never_started` where given.
    public func summary(
        _ counters: [ProviderKind: ProviderCounters],
        kinds: [ProviderKind] = ProviderKind.Solution.onDemand.kinds,
        started: [ProviderKind: (started: Int, sdks: Int)] = [:]
    ) -> String {
        let providers = kinds.map { kind -> (String, JSONValue) in
            let c = counters[kind] ?? ProviderCounters()
            var fields: JSONObject = [
                "requests": .int(Int64(c.requests)), "hits": .int(Int64(c.hits)), "errors": .int(Int64(c.errors)),
                "hit_ratio": c.hitRatio.map { .double(($0 * 10_000).rounded() / 10_000) } ?? .null,
            ]
            if let ramp = started[kind] {
                fields["sdks"] = .int(Int64(ramp.sdks))
                fields["started"] = .int(Int64(ramp.started))
                // Counted apart: an SDK that never asked was never judged, and `watch` exits 1 for it.
                fields["never_started"] = .int(Int64(max(0, ramp.sdks - ramp.started)))
            }
            return (kind.rawValue, .object(fields))
        }
        return Self.object([("event", .string("summary"))] + providers)
    }

    public static func object(_ fields: [(String, JSONValue)]) -> String {
        "{" + fields.map { "\(JSONValue.string($0.0).description):\($0.1.description)" }.joined(separator: ",") + "}"
    }

    public static func milliseconds(_ seconds: TimeInterval) -> JSONValue {
        .double((seconds * 1_000_000).rounded() / 1000)
    }

    public static func timestamp(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
