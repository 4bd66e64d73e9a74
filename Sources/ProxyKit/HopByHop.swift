import Foundation
import NIOHTTP1

/// The headers that concern one connection, not the message (RFC 9110 §7.6.1): a proxy drops them
/// and whatever `Connection` names, and sets its own. Everything else passes as it came, cookies and
/// `Authorization` included. `Transfer-Encoding` stays: SwiftNIO frames the body by it on the way out.
/// The one list for the three proxies (the tap, the provider's loopback proxy, the tests' proxy).
public enum HopByHop {
    public static let names: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"]

    /// The names `headers` drops: the list, and the tokens of every `Connection` header.
    public static func named(in headers: HTTPHeaders) -> Set<String> {
        var named = names
        for value in headers["connection"] {
            for token in value.split(separator: ",") {
                named.insert(token.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        named.remove("transfer-encoding")
        return named
    }

    public static func removed(from headers: HTTPHeaders) -> HTTPHeaders {
        let named = named(in: headers)
        guard headers.contains(where: { named.contains($0.name.lowercased()) }) else { return headers }
        var kept = HTTPHeaders()
        for (name, value) in headers where !named.contains(name.lowercased()) { kept.add(name: name, value: value) }
        return kept
    }
}
