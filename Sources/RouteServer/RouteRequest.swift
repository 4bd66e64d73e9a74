import Foundation

/// A request as the routes see it, whichever HTTP server parsed it: the path with dot segments
/// resolved and percent escapes decoded, and the query's parameters.
public struct RouteRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    /// The `Authorization` header: the Fleet Engine emulator's bearer token.
    public var authorization: String?
    /// The body, at most `maximumBody` bytes; `bodyTooLarge` when more came.
    public var body: Data
    public var bodyTooLarge: Bool

    /// A location update's body is under 200 bytes; nothing the routes read needs more.
    public static let maximumBody = 64 * 1024

    public init(
        method: String, path: String, query: [String: String] = [:], authorization: String? = nil,
        body: Data = Data(), bodyTooLarge: Bool = false
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }

    /// From the request target as sent (`/token/driver/a%2Db?ms=5`): `.` and `..` segments
    /// resolved, a trailing slash dropped, then each segment decoded; a segment that does not decode
    /// stays as sent.
    init(method: String, target: String, authorization: String? = nil, body: Data = Data(), bodyTooLarge: Bool = false)
    {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.init(
            method: method, path: Self.standardize(String(parts.first ?? "")),
            query: parts.count > 1 ? Self.parameters(parts[1]) : [:],
            authorization: authorization, body: body, bodyTooLarge: bodyTooLarge)
    }

    static func standardize(_ rawPath: String) -> String {
        // The usual case, a plain path: nothing to resolve or decode.
        if !rawPath.utf8.contains(UInt8(ascii: "%")), !rawPath.contains("/."), rawPath.utf8.first == UInt8(ascii: "/") {
            return rawPath.utf8.count > 1 && rawPath.utf8.last == UInt8(ascii: "/")
                ? String(rawPath.dropLast()) : rawPath
        }
        var segments: [Substring] = []
        let raw = rawPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in raw.enumerated() {
            let last = index == raw.count - 1
            switch segment {
            case ".":
                if last { segments.append("") }
            case "..":
                if !segments.isEmpty { segments.removeLast() }
                if last { segments.append("") }
            default:
                segments.append(segment)
            }
        }
        // A trailing slash goes, as Foundation's URL.path drops it.
        if segments.count > 1, segments.last == "" { segments.removeLast() }
        return "/" + segments.map { $0.removingPercentEncoding ?? String($0) }.joined(separator: "/")
    }

    /// `a=1&b=x%20y` as a dictionary; the first of repeated names wins, `+` is a space.
    static func parameters(_ query: Substring) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                let spaced = s.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decode(nameValue[0])
            if result[name] == nil { result[name] = nameValue.count > 1 ? decode(nameValue[1]) : "" }
        }
        return result
    }
}
