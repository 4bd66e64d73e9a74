import Foundation
import TokenReading

/// Where and how to ask a backend for tokens of one kind.
public struct TokenEndpoint: Sendable {
    public var kind: ProviderKind
    /// A URL with the kind's placeholder (`{tripId}`, `{vehicleId}`, `{trackingId}`, `{deliveryVehicleId}`) or `{id}`; without one, the ID is sent as a query item.
    public var urlTemplate: String
    /// The key (or dotted path) of the token; nil detects the response's shape.
    public var tokenKey: String?
    /// The key (or dotted path) of the expiry; nil detects it, or falls back to the JWT's `exp`.
    public var expiryKey: String?
    public var expiryMode: ExpiryMode
    public var headers: [HTTPHeader]
    public var timeout: TimeInterval
    public var maxBodyBytes: Int
    /// The Google Cloud project (Fleet Engine provider ID) the tokens' issuer must belong to;
    /// nil accepts any.
    public var providerID: String?
    /// The backend is tokendash's embedded server, whose token lifetime the user chose: a short
    /// lifetime is then a note, not a warning (`TokenRules.evaluate`).
    public var lifetimeChosen: Bool = false

    public init(
        kind: ProviderKind, urlTemplate: String, tokenKey: String? = nil,
        expiryKey: String? = nil, expiryMode: ExpiryMode = .auto,
        headers: [HTTPHeader] = [], timeout: TimeInterval = 10, maxBodyBytes: Int = 64 * 1024,
        providerID: String? = nil
    ) {
        self.kind = kind
        self.urlTemplate = urlTemplate
        self.tokenKey = tokenKey
        self.expiryKey = expiryKey
        self.expiryMode = expiryMode
        self.headers = headers
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
        self.providerID = providerID
    }

    /// The routes of Google's sample backends for this kind, under `base` (e.g. `http://127.0.0.1:8080`).
    /// The last-mile sample answers `{"token", "creation_timestamp_ms", "expiration_timestamp_ms"}`
    /// (epoch milliseconds), the on-demand one `{"jwt", "creationTimestamp", "expirationTimestamp"}`.
    public static func sampleBackend(_ kind: ProviderKind, base: String) -> TokenEndpoint {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        // No keys: both samples' answers are recognised (`ResponseShape`), and named as such.
        return TokenEndpoint(kind: kind, urlTemplate: trimmed + kind.defaultRoutePath)
    }

    /// The request URL for `id`. The ID is percent-encoded for where it goes so that the backend
    /// decodes exactly the ID typed: every byte but the RFC 3986 unreserved ones is encoded (`/ ? # ; + & =`
    /// and `%` included), and in a path an ID of only dots is encoded too (`.` -> `%2E`), or clients and
    /// servers would resolve `.` / `..` as dot segments and ask for another resource.
    public func url(for id: String) throws(FleetAuthError) -> URL {
        let placeholders = ["{\(kind.idParameter)}", "{id}"]
        if let placeholder = placeholders.first(where: { urlTemplate.contains($0) }) {
            let onlyDots = !id.isEmpty && id.allSatisfy { $0 == "." }
            let escaped = Self.percentEncode(id, keepingDots: !onlyDots)
            guard let url = URL(string: urlTemplate.replacingOccurrences(of: placeholder, with: escaped)) else {
                throw .invalidURL(urlTemplate)
            }
            return url
        }
        guard let url = URL(string: urlTemplate) else { throw .invalidURL(urlTemplate) }
        // Appended by hand: URLComponents.queryItems leaves `+`, `;` and `=` as they are, and servers
        // read a `+` as a space.
        let fragmentStart = urlTemplate.firstIndex(of: "#") ?? urlTemplate.endIndex
        let beforeFragment = urlTemplate[..<fragmentStart]
        let separator =
            beforeFragment.contains("?")
            ? (beforeFragment.hasSuffix("?") || beforeFragment.hasSuffix("&") ? "" : "&") : "?"
        let item = kind.idParameter + "=" + Self.percentEncode(id, keepingDots: true)
        guard url.scheme != nil,
            let withID = URL(string: beforeFragment + separator + item + urlTemplate[fragmentStart...])
        else {
            throw .invalidURL(urlTemplate)
        }
        return withID
    }

    /// Every UTF-8 byte except ASCII letters, digits, `-`, `_`, `~` (and `.` when kept) as `%XX`.
    static func percentEncode(_ text: String, keepingDots: Bool) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: ".") where keepingDots:
                out.append(".")
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `NAME:VALUE` as given on the command line.
    public init?(parsing text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        self.name = name
        self.value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
