/// Answers requests for `NIORouteServer`: the token routes, or a page such as `/metrics`.
public protocol RouteResponder: Sendable {
    func respond(to request: RouteRequest) async -> RouteResponse
}
