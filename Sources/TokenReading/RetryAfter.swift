import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3): delta-seconds or an HTTP-date (`HTTPDate`).
public enum RetryAfter {
    /// The header as whole seconds from `now`, capped at an hour (a token never lives longer, so a
    /// longer wait is a misconfigured server); nil when absent or unreadable; a date in the past is 0.
    public static func seconds(_ value: String?, now: Date) -> Int? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let cap = JWTInspector.maximumLifetime
        if text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // More digits than an Int holds is still "a very long time": capped, not refused.
            return min(Int(text) ?? cap, cap)
        }
        guard let date = HTTPDate.parse(text, now: now) else { return nil }
        let seconds = date.timeIntervalSince(now).rounded(.up)
        return Int(min(max(seconds, 0), TimeInterval(cap)))
    }
}
