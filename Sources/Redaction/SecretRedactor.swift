import Foundation
import Synchronization

/// The one redactor for text that leaves the process: banners, headers, errors, recordings,
/// snapshots, `config check`. It hides JWTs (`TokenRedactor`), URL credentials and credential
/// query values (`URLRedactor`), and every secret the user handed over for this run (header
/// values, proxy passwords), wherever they appear, a backend's quoted answer included. Only the
/// cached token itself is shown whole, and only when the user asks to reveal it.
public enum SecretRedactor {
    /// Shorter values are not hunted for in free text: hiding every "1" of a message to cover an
    /// `X-Debug: 1` header would garble it, and such a value is no credential.
    public static let shortestHiddenValue = 6

    /// The values registered for this process, longest first (so a value is hidden before a part of it).
    private static let secrets = Mutex<[String]>([])

    /// Hides `value` from all later output. Header values go in whole, and also without an auth
    /// scheme (`Bearer X` hides `X`, which a backend may quote alone) and per cookie (`a=X; b=Y`).
    public static func register(_ value: String) {
        var pieces = [value]
        if let space = value.firstIndex(of: " "), value[..<space].allSatisfy(\.isLetter) {
            pieces.append(String(value[value.index(after: space)...]))
        }
        for cookie in value.split(separator: ";") {
            if let equals = cookie.firstIndex(of: "=") { pieces.append(String(cookie[cookie.index(after: equals)...])) }
        }
        // A JSON body quotes `/` as `\/`; both spellings are hidden.
        pieces += pieces.map { $0.replacingOccurrences(of: "/", with: "\\/") }
        let kept = pieces.map { $0.trimmingSpaces }.filter { $0.count >= shortestHiddenValue }
        guard !kept.isEmpty else { return }
        secrets.withLock { list in
            for piece in kept where !list.contains(piece) { list.append(piece) }
            list.sort { $0.count > $1.count }
        }
    }

    /// `text` with every secret hidden.
    public static func redact(_ text: String) -> String {
        var out = text
        let registered = secrets.withLock { $0 }
        for secret in registered where out.contains(secret) {
            out = out.replacingOccurrences(of: secret, with: URLRedactor.hidden)
        }
        return URLRedactor.redactURLs(in: TokenRedactor.redactJWTs(in: out))
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
