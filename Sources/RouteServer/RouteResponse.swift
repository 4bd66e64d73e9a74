import Foundation

/// What a route answers, for whichever HTTP server sends it: a status, headers and a body,
/// or closing the connection without any response (the `drop` fault).
public struct RouteResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data
    public var dropsConnection = false

    public init(status: Int, headers: [(name: String, value: String)], body: Data, dropsConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.dropsConnection = dropsConnection
    }

    /// The response that closes its connection unanswered.
    public static let drop = RouteResponse(status: 0, headers: [], body: Data(), dropsConnection: true)

    public static let jsonType = (name: "Content-Type", value: "application/json")
    public static let noStore = (name: "Cache-Control", value: "no-store")

    /// `{"error": message}` with `status`: how every route here says no.
    public static func jsonError(_ message: String, status: Int) -> RouteResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(["error": message])) ?? Data("{}".utf8)
        return RouteResponse(status: status, headers: [jsonType, noStore], body: body)
    }
}
