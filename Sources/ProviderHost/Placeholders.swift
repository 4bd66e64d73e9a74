import FleetAuth
import Foundation

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

    static func fill(_ text: String, role: ProviderKind.Role, providerURL: String) -> (
        String, [ProviderSourceFile.Filling]
    ) {
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
}
