import Foundation
import ProviderVocabulary

/// Google's placeholders in the samples, and what tokendash fills in for them in the copy it
/// builds, as the samples' comments tell a developer to ("Replace the following key values with
/// the appropriate keys based on your server's expected response"). Only these string literals
/// are touched, and each one filled is reported.
enum Placeholders {
    static let url = "INSERT_YOUR_TOKEN_PROVIDER_URL"

    /// Each placeholder of `role`'s sample and its value: the URL of the embedded server's route
    /// for the SDK's current ID, the key of Google's sample backend for the token (`jwt`), and
    /// its expiry key, which that backend sends in milliseconds (`expirationTimestamp`).
    static func values(role: ProviderKind.Role, providerURL: String) -> [(String, String)] {
        [
            (url, providerURL), (role == .driver ? "VEHICLE_TOKEN_KEY" : "TRIP_TOKEN_KEY", "jwt"),
            ("TOKEN_EXPIRATION", "expirationTimestamp"),
        ]
    }

    static func fill(
        _ text: String, role: ProviderKind.Role, providerURL: String, language: ProviderSourceFile.Language = .swift
    ) -> (String, [ProviderSourceFile.Filling]) {
        if language.isJVM { return fillJava(text, providerURL: providerURL) }
        var fillings: [ProviderSourceFile.Filling] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (placeholder, value) in values(role: role, providerURL: providerURL) {
            let literal = "\"\(placeholder)\""
            for index in lines.indices where lines[index].contains(literal) {
                lines[index] = lines[index].replacingOccurrences(of: literal, with: "\"\(value)\"")
                fillings.append(.init(line: index + 1, placeholder: placeholder, value: value))
            }
        }
        return (lines.joined(separator: "\n"), fillings.sorted { $0.line < $1.line })
    }

    /// Google's Android skeletons have no INSERT_ placeholders: they fetch from
    /// `https://yourauthserver.example/token/ID` (or build it with `Uri.Builder`'s
    /// `.authority("yourauthserver.example")`) and read the answer's `VehicleServiceToken` or
    /// `ServiceToken` and `TokenExpiryMs` (epoch milliseconds). Those are filled together, as one
    /// backend's contract: the URL becomes the embedded server's session route, which mints for
    /// the ID the URL names, and the keys its `jwt` and `expirationTimestamp` (also epoch
    /// milliseconds, so the skeleton's expiry arithmetic is unchanged). Only with a URL to give:
    /// a factory run against the user's own backend keeps its keys.
    static let androidHost = "yourauthserver.example"
    static let androidKeys = [
        ("VehicleServiceToken", "jwt"), ("ServiceToken", "jwt"), ("TokenExpiryMs", "expirationTimestamp"),
    ]

    static func fillJava(_ text: String, providerURL: String) -> (String, [ProviderSourceFile.Filling]) {
        guard let session = URL(string: providerURL), let scheme = session.scheme, scheme.hasPrefix("http"),
            let url = try? NSRegularExpression(pattern: #""https?://yourauthserver\.example(/token)?"#)
        else { return (text, []) }
        let authority = providerURL.dropFirst(scheme.count + 3)
        var fillings: [ProviderSourceFile.Filling] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var authorityFilled = false
        for index in lines.indices {
            var line = lines[index]
            let whole = NSRange(line.startIndex..., in: line)
            for match in url.matches(in: line, range: whole).reversed() {
                guard let range = Range(match.range, in: line) else { continue }
                let placeholder = String(line[range].dropFirst())
                line.replaceSubrange(range, with: "\"" + providerURL)
                fillings.append(.init(line: index + 1, placeholder: placeholder, value: providerURL))
            }
            if line.contains("\"\(androidHost)\"") {
                line = line.replacingOccurrences(of: "\"\(androidHost)\"", with: "\"\(authority)\"")
                fillings.append(.init(line: index + 1, placeholder: androidHost, value: String(authority)))
                authorityFilled = true
            }
            lines[index] = line
        }
        guard !fillings.isEmpty else { return (text, []) }
        for index in lines.indices {
            // Uri.Builder's scheme goes with the authority it was given: the embedded server speaks http.
            if authorityFilled, scheme == "http", lines[index].contains(".scheme(\"https\")") {
                lines[index] = lines[index].replacingOccurrences(of: ".scheme(\"https\")", with: ".scheme(\"http\")")
                fillings.append(.init(line: index + 1, placeholder: "https", value: "http"))
            }
            for (key, value) in androidKeys where lines[index].contains("\"\(key)\"") {
                lines[index] = lines[index].replacingOccurrences(of: "\"\(key)\"", with: "\"\(value)\"")
                fillings.append(.init(line: index + 1, placeholder: key, value: value))
            }
        }
        return (lines.joined(separator: "\n"), fillings.sorted { $0.line < $1.line })
    }
}
