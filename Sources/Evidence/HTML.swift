import ProviderVocabulary
import Redaction

/// Text made safe for a page: escaped, and anything shaped like a secret redacted on the way in,
/// so no field of a report is a way for a whole token to reach it.
enum HTML {
    static func text(_ value: String) -> String {
        escape(SecretRedactor.redact(value))
    }

    /// Escaped only: for text tokendash made itself (frames, numbers, its own sentences).
    static func escape(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
