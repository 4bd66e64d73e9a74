import FleetEngineAPI
import Foundation
import ProviderVocabulary
import RouteServer

/// The token routes plus `GET /metrics`, counting every answer by route and status.
struct MeteredRoutes: RouteResponder {
    let routes: TokenRoutes
    let metrics: ServerMetrics
    let faults: FaultBoard

    func respond(to request: RouteRequest) async -> RouteResponse {
        let reply: RouteResponse
        if request.path == "/metrics" {
            reply =
                request.method == "GET"
                ? MetricsPage.response(metrics.exposition(active: faults.all))
                : TokenRoutes.error("use GET /metrics", status: 405)
        } else {
            reply = await routes.respond(to: request)
        }
        metrics.answered(
            route: Self.route(request.path), status: reply.dropsConnection ? "dropped" : String(reply.status))
        return reply
    }

    /// The route's template: a token path without its ID, the fixed paths as they are, `other`
    /// for anything else (so a scan of random paths adds one series, not one per path).
    static func route(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        switch segments.first {
        case "token":
            let kind = segments.dropFirst().first.flatMap { ProviderKind(rawValue: String($0)) }
            return kind.map { "/token/\($0.rawValue)" } ?? "/token"
        case "faults": return "/faults"
        case "v1":
            // The Fleet Engine emulator's collection, without the project and the ID.
            let parts = Array(segments)
            return parts.count == 5 && parts[1] == "providers"
                && FleetEngineMethod.allCases.contains { $0.collection == parts[3] }
                ? "/v1/providers/*/\(parts[3])" : "other"
        default:
            return ["/metrics", "/healthz", "/stats", "/.well-known/jwks.json"].contains(path) ? path : "other"
        }
    }
}
