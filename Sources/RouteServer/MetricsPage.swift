import Foundation

/// Serves a Prometheus exposition at `GET /metrics`, for `--metrics`: `render` is called on
/// every scrape (it may compute gauges then).
public struct MetricsPage: RouteResponder {
    /// The text format's content type, version 0.0.4.
    public static let contentType = (name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")

    private let render: @Sendable () -> [UInt8]

    public init(render: @escaping @Sendable () -> [UInt8]) {
        self.render = render
    }

    public func respond(to request: RouteRequest) async -> RouteResponse {
        guard request.path == "/metrics" else {
            return RouteResponse.jsonError("no route for \(request.path); scrape /metrics", status: 404)
        }
        guard request.method == "GET" else { return RouteResponse.jsonError("use GET /metrics", status: 405) }
        return Self.response(render())
    }

    /// The exposition `text` as a scrape's answer, for a route that serves it beside others.
    public static func response(_ text: [UInt8]) -> RouteResponse {
        RouteResponse(status: 200, headers: [contentType, RouteResponse.noStore], body: Data(text))
    }
}
