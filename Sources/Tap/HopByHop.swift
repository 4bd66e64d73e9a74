import NIOHTTP1

/// The headers that concern one connection, not the message (RFC 9110 §7.6.1): a proxy drops them
/// and whatever `Connection` names, and sets its own. Everything else passes as it came, cookies and
/// `Authorization` included. `Transfer-Encoding` stays: SwiftNIO frames the body by it on the way out.
enum HopByHop {
    static let names: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"]

    static func removed(from headers: HTTPHeaders) -> HTTPHeaders {
        var named = names
        for value in headers["connection"] {
            for token in value.split(separator: ",") {
                named.insert(token.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        named.remove("transfer-encoding")
        guard headers.contains(where: { named.contains($0.name.lowercased()) }) else { return headers }
        var kept = HTTPHeaders()
        for (name, value) in headers where !named.contains(name.lowercased()) { kept.add(name: name, value: value) }
        return kept
    }
}
