import Foundation

/// How to read the expiration the backend sends next to the token.
public enum ExpiryMode: String, Sendable, CaseIterable {
    /// Epoch seconds, as Google's Swift sample reads it.
    case absolute
    /// Epoch milliseconds, as Google's sample backend sends `expirationTimestamp`.
    case absoluteMilliseconds = "absolute-ms"
    /// Seconds from now, as Google's Objective-C sample reads it.
    case relative
    /// Decided from the magnitude; a response without the key falls back to the JWT's `exp`.
    case auto
    /// Only the JWT's signed `exp`; the response's expiry key is not read.
    case jwt
}

/// Where and how to ask a backend for tokens of one kind.
public struct TokenEndpoint: Sendable {
    public var kind: ProviderKind
    /// A URL with `{tripId}` / `{vehicleId}` (or `{id}`); without one, the ID is sent as a query item.
    public var urlTemplate: String
    public var tokenKey: String
    public var expiryKey: String
    public var expiryMode: ExpiryMode
    public var headers: [HTTPHeader]
    public var timeout: TimeInterval
    public var maxBodyBytes: Int
    /// The Google Cloud project (Fleet Engine provider ID) the tokens' issuer must belong to;
    /// nil accepts any.
    public var providerID: String?

    public init(
        kind: ProviderKind, urlTemplate: String, tokenKey: String = "jwt",
        expiryKey: String = "expirationTimestamp", expiryMode: ExpiryMode = .auto,
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

    /// The routes of Google's sample backend for this SDK pair, under `base` (e.g. `http://127.0.0.1:8080`).
    public static func sampleBackend(_ kind: ProviderKind, base: String) -> TokenEndpoint {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        let path = kind == .consumer ? "/token/consumer/{tripId}" : "/token/driver/{vehicleId}"
        return TokenEndpoint(kind: kind, urlTemplate: trimmed + path)
    }

    public func url(for id: String) throws(FleetAuthError) -> URL {
        let placeholders = ["{\(kind.idParameter)}", "{id}"]
        if let placeholder = placeholders.first(where: { urlTemplate.contains($0) }) {
            let escaped = id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#"])) ?? id
            guard let url = URL(string: urlTemplate.replacingOccurrences(of: placeholder, with: escaped)) else {
                throw .invalidURL(urlTemplate)
            }
            return url
        }
        guard var components = URLComponents(string: urlTemplate) else { throw .invalidURL(urlTemplate) }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: kind.idParameter, value: id)]
        guard let url = components.url else { throw .invalidURL(urlTemplate) }
        return url
    }
}

public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(name: String, value: String) { self.name = name; self.value = value }

    /// Parses `NAME:VALUE` as given on the command line.
    public init?(parsing text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        self.name = name
        self.value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
