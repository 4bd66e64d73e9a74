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
    static let drop = RouteResponse(status: 0, headers: [], body: Data(), dropsConnection: true)

    static let jsonType = (name: "Content-Type", value: "application/json")
    static let noStore = (name: "Cache-Control", value: "no-store")
}
