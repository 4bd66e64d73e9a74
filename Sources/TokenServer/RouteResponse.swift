import Foundation

/// What a route answers, for whichever HTTP server sends it: a status, headers and a body,
/// or closing the connection without any response (the `drop` fault).
struct RouteResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: Data
    var dropsConnection = false

    /// The response that closes its connection unanswered.
    static let drop = RouteResponse(status: 0, headers: [], body: Data(), dropsConnection: true)

    static let jsonType = (name: "Content-Type", value: "application/json")
    static let noStore = (name: "Cache-Control", value: "no-store")
}
