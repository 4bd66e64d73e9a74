import Foundation
import ProviderVocabulary
import RouteServer
import TokenReading
import TokenServer

/// The tap bench's upstream: answers every token route at once with a JWT for the asked ID in the
/// on-demand sample's shape, unsigned (a fixed signature part), so the load measures the tap and
/// not RSA signing; the tap reads and judges it like any token (no `--jwks`: the signature is not checked).
struct UnsignedTokenRoutes: RouteResponder {
    func respond(to request: RouteRequest) async -> RouteResponse {
        let id = String(request.path.split(separator: "/").last ?? "")
        let kind = ProviderKind.allCases.first { request.path.hasPrefix("/token/\($0.rawValue)/") } ?? .consumer
        let iat = Int(Date().timeIntervalSince1970)
        let header = JWTInspector.base64URLEncode(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let account = "bench@bench-project.iam.gserviceaccount.com"
        let claims =
            #"{"aud":"https://fleetengine.googleapis.com/","authorization":{"\#(kind.claimName)":"\#(id)"},"exp":\#(iat + 3600),"iat":\#(iat),"iss":"\#(account)","sub":"\#(account)"}"#
        let jwt = header + "." + JWTInspector.base64URLEncode(Data(claims.utf8)) + ".c2lnbmF0dXJl"
        let body =
            #"{"jwt":"\#(jwt)","creationTimestamp":\#(iat * 1000),"expirationTimestamp":\#((iat + 3600) * 1000)}"#
        return RouteResponse(status: 200, headers: [("Content-Type", "application/json")], body: Data(body.utf8))
    }
}
