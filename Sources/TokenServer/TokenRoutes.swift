import Faults
import Foundation
import ProviderVocabulary
import RouteServer
import TokenReading

/// Routes of the embedded backend: Google's sample-backend token routes, JWKS, health,
/// statistics and fault switches. Its own routing rather than a server's route patterns, which
/// cannot match an empty ID (that must get a 400, not a 404); the HTTP layer only parses and sends.
struct TokenRoutes: Sendable {

    let minter: TokenMinter
    let faults: FaultBoard
    let counters: ServerCounters
    let jwksBody: Data
    let settings: MintSettings
    let fleetEngine: FleetEngineEmulator
    let dateHeader = DateHeader()

    func respond(to request: RouteRequest) async -> RouteResponse {
        // The first segment is the empty one before "/".
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        switch segments.first {
        case "token":
            if segments.count >= 2, let kind = ProviderKind(rawValue: segments[1]) {
                counters.request(kind)
                guard request.method == "GET" else {
                    counters.error(kind)
                    return Self.error("use GET for \(request.path)", status: 405)
                }
                return await token(kind, idSegments: segments.dropFirst(2))
            }
        case "session" where segments.count >= 2:
            // The customer's provider asks with no ID in the URL: the server answers for the SDK's
            // current one. Google's Android skeletons name the ID themselves (`…/token/ID`, or
            // `?tripId=ID`), and then that ID is minted for, so a factory asking for a stale ID
            // gets the token it asked for, as from its own backend.
            if let kind = ProviderKind(rawValue: segments[1]) {
                counters.request(kind)
                guard let id = Self.namedID(in: request, after: segments.dropFirst(2)) ?? settings.sessionID(kind)
                else {
                    counters.error(kind)
                    return Self.error("no \(kind.idNoun) in this session yet", status: 404)
                }
                return await token(kind, idSegments: [id], shapeOf: kind.role == .driver ? .driver : .consumer)
            }
        case "faults":
            counters.otherRequest()
            return faultRoute(request, segments: Array(segments.dropFirst()))
        case "v1":
            counters.otherRequest()
            return await fleetEngine.respond(to: request, segments: segments.dropFirst())
        case ".well-known" where segments == [".well-known", "jwks.json"] && request.method == "GET":
            counters.otherRequest()
            return RouteResponse(status: 200, headers: [RouteResponse.jsonType], body: jwksBody)
        case "healthz" where segments.count == 1 && request.method == "GET":
            counters.otherRequest()
            return Self.json(["status": "ok"])
        case "stats" where segments.count == 1 && request.method == "GET":
            counters.otherRequest()
            return Self.json(counters.snapshot)
        default:
            break
        }
        counters.otherRequest()
        return Self.error("no route for \(request.method) \(request.path)", status: 404)
    }

    /// The ID an Android skeleton names after `/session/KIND`: a query's `vehicleId`, `tripId`,
    /// `deliveryVehicleId` or `taskId`, else the last path segment but the samples' word `token`.
    static func namedID(in request: RouteRequest, after rest: ArraySlice<String>) -> String? {
        for key in ["vehicleId", "tripId", "deliveryVehicleId", "taskId"] {
            if let id = request.query[key], !id.isEmpty { return id }
        }
        guard let last = rest.last(where: { !$0.isEmpty }), last != "token" else { return nil }
        return last.removingPercentEncoding ?? last
    }

    // MARK: - Tokens

    /// `shapeOf`: the kind whose sample backend's answer to give; the session route answers as the
    /// on-demand sample does, whose keys the samples' placeholders are filled with.
    private func token(_ kind: ProviderKind, idSegments: ArraySlice<String>, shapeOf: ProviderKind? = nil) async
        -> RouteResponse
    {
        let id = idSegments.joined(separator: "/")
        if let problem = Self.problem(with: id, kind: kind) {
            counters.error(kind)
            return Self.error(problem, status: 400)
        }
        // Fleet Engine's faults act on the emulator's routes, not on minting.
        let fault = faults.fault(for: kind).flatMap { $0.fault.isFleetEngine ? nil : $0 }
        if fault != nil { counters.faulted(kind) }
        var mintID = id
        let now = settings.now()
        var issuedAt = now
        let lifetime = settings.lifetime ?? minter.lifetime
        switch fault?.fault {
        case .latency?:
            // The server's own behaviour under test, not synchronisation: answer late on purpose.
            try? await Task.sleep(for: .milliseconds(fault?.latencyMilliseconds ?? Fault.defaultLatencyMilliseconds))
        case .http500?, .http401?, .rateLimited?:
            counters.error(kind)
            if let fault, let answer = FaultAnswer(fault.fault) {
                return RouteResponse(
                    status: answer.status, headers: answer.headers + [RouteResponse.noStore],
                    body: Data(answer.body.utf8))
            }
        case .drop?:
            counters.error(kind)
            return .drop
        case .wrongID?:
            mintID = "not-" + id
        case .expired?:
            // Expired a minute ago, so no clock skew allowance can save it.
            issuedAt = issuedAt.addingTimeInterval(-(lifetime + 60))
        case .malformed?, .fleetEngineUnavailable?, .revokedKey?, .clockSkew?, nil:
            break
        }
        let started = ContinuousClock.now
        let minted: MintedToken
        do {
            minted = try await minter.mint(kind, id: mintID, now: issuedAt, lifetime: lifetime)
        } catch {
            counters.error(kind)
            return Self.error(error.description, status: 500)
        }
        counters.minted(kind, seconds: Self.seconds(ContinuousClock.now - started))
        fleetEngine.register(kind, id: id)
        var body = Self.body(minted, kind: shapeOf ?? kind)
        switch fault?.fault {
        case .malformed?:
            body = FaultAnswer.cut(body)
            counters.error(kind)
        case .wrongID?, .expired?:
            counters.error(kind)
        case .latency?, .http500?, .http401?, .rateLimited?, .drop?, .fleetEngineUnavailable?, .revokedKey?,
            .clockSkew?, nil:
            break
        }
        // The Date header lets a client measure its clock against ours (RFC 9110 asks origin servers for it).
        return RouteResponse(
            status: 200, headers: [RouteResponse.jsonType, RouteResponse.noStore, ("Date", dateHeader.text(for: now))],
            body: body)
    }

    /// The answer in the shape of Google's sample backend for `kind`: the on-demand sample's
    /// `jwt` / `creationTimestamp` / `expirationTimestamp`, the last-mile sample's `token` /
    /// `creation_timestamp_ms` / `expiration_timestamp_ms`; both in epoch milliseconds.
    static func body(_ minted: MintedToken, kind: ProviderKind) -> Data {
        // The same shape the client recognises, so the two cannot drift apart.
        let shape = ResponseShape.sample(for: kind)
        let keys = (
            shape.tokenKey ?? "jwt", shape.creationKey ?? "creationTimestamp", shape.expiryKey ?? "expirationTimestamp"
        )
        // A JWT is base64url and dots only, so it goes into the JSON without escaping.
        return Data(
            ("{\"\(keys.0)\":\"\(minted.jwt)\",\"\(keys.1)\":\(milliseconds(minted.issuedAt))"
                + ",\"\(keys.2)\":\(milliseconds(minted.expiresAt))}").utf8)
    }

    /// Why `id` cannot be minted for, or nil when it can.
    static func problem(with id: String, kind: ProviderKind) -> String? {
        if id.isEmpty { return "missing \(kind.idNoun)" }
        if id == "*" { return "the wildcard \(kind.idNoun) \"*\" is not minted here" }
        // Fleet Engine's own rule, so the server mints for exactly the IDs Fleet Engine accepts.
        if let problem = FleetEngineID.problem(id) { return "\(kind.idNoun) is not a Fleet Engine ID: \(problem)" }
        return nil
    }

    // MARK: - Faults

    /// `GET /faults`, `DELETE /faults[/TARGET]`, `PUT /faults/TARGET/NAME[?ms=N]`.
    private func faultRoute(_ request: RouteRequest, segments: [String]) -> RouteResponse {
        switch (request.method, segments.count) {
        case ("GET", 0):
            break
        case ("DELETE", 0):
            faults.clear()
        case ("DELETE", 1):
            guard let target = FaultTarget(rawValue: segments[0]) else { return Self.badTarget(segments[0]) }
            faults.set(nil, for: target)
        case ("PUT", 2), ("POST", 2):
            guard let target = FaultTarget(rawValue: segments[0]) else { return Self.badTarget(segments[0]) }
            let ms = request.query["ms"].flatMap { Int($0) }
            let longest = Int(InputBounds.longestDuration) * 1000
            if request.query["ms"] != nil && !(0...longest).contains(ms ?? -1) {
                return Self.error(
                    "ms must be a whole number of milliseconds from 0 to \(longest) (30 days)", status: 400)
            }
            guard let fault = Fault(name: segments[1]) else {
                return Self.error(
                    "unknown fault \"\(segments[1])\"; use one of \(Fault.names.joined(separator: ", "))", status: 400)
            }
            faults.set(FaultSetting(fault, latencyMilliseconds: ms ?? Fault.defaultLatencyMilliseconds), for: target)
        default:
            return Self.error(
                "use GET /faults, PUT /faults/{\(FaultTarget.allCases.map(\.rawValue).joined(separator: "|"))}/{fault}, DELETE /faults[/{target}]",
                status: 400)
        }
        return Self.json(FaultReport(faults.all))
    }

    private static func badTarget(_ name: String) -> RouteResponse {
        error(
            "unknown target \"\(name)\"; use \(FaultTarget.allCases.map(\.rawValue).joined(separator: ", "))",
            status: 400)
    }

    // MARK: - Encoding

    static func json(_ value: some Encodable, status: Int = 200) -> RouteResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return RouteResponse(status: status, headers: [RouteResponse.jsonType, RouteResponse.noStore], body: body)
    }

    static func error(_ message: String, status: Int) -> RouteResponse { .jsonError(message, status: status) }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

extension TokenRoutes: RouteResponder {}
