import Crypto
import Faults
import FleetEngineAPI
import Foundation
import JSONValues
import JWTKit
import ProviderVocabulary
import RouteServer
import Synchronization
import TokenJudging
import TokenReading

/// The embedded Fleet Engine: answers the REST calls the simulated SDKs make with their tokens
/// (`FleetEngineMethod`) and authenticates each as Fleet Engine does, in Google's error format
/// (`{"error":{"code":403,"message":"…","status":"PERMISSION_DENIED"}}`, AIP-193):
/// - the signature, against the keys of the service account that mints here (jwt-kit);
/// - `aud` exactly Fleet Engine's, `iat` at most 10 minutes in its future, `exp` not passed,
///   `exp - iat` at most an hour (`FleetEngineLimits`, from Fleet Engine's JWT page, not the
///   client's `TokenRules`);
/// - the `authorization` claim against the ID in the path, `*` covering any;
/// - the token's type against the method: a trip token reads its trip and updates no vehicle.
/// The messages are this emulator's own words, naming the mismatch; a real Fleet Engine's differ.
/// Resources exist once the server has minted a token for their ID; any other is `NOT_FOUND`.
struct FleetEngineEmulator: Sendable {
    let faults: FaultBoard
    let clock: any ProviderClock
    /// The service account whose keys sign the tokens Fleet Engine accepts.
    let account: String
    /// Where the authenticated calls are written as Fleet Engine's logs (`--fleet-engine-log`).
    let log: FleetEngineLog?
    private let keys: JWTKeyCollection
    private let resources = KnownResources()
    private let verified = VerifiedTokens()

    init(key: SigningKey, account: String, faults: FaultBoard, clock: any ProviderClock, log: FleetEngineLog? = nil)
        async
    {
        self.faults = faults
        self.log = log
        self.clock = clock
        self.account = account
        let keys = JWTKeyCollection()
        await keys.add(rsa: key.privateKey.publicKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.keyID))
        self.keys = keys
    }

    /// The Google Cloud project the account belongs to: the `providers/{project}` its tokens may name.
    var project: String? { TokenRules.serviceAccountProject(account) }

    /// The server minted a token for `id`: the SDK's trip or vehicle exists from now on.
    func register(_ kind: ProviderKind, id: String) { resources.add(kind, id: id) }

    /// `/v1/providers/{provider}/{collection}/{id}`; `segments` are the path's after `v1`.
    func respond(to request: RouteRequest, segments: ArraySlice<String>) async -> RouteResponse {
        let parts = Array(segments)
        guard parts.count == 4, parts[0] == "providers",
            let method = FleetEngineMethod.route(httpMethod: request.method, collection: parts[2])
        else {
            return Self.error(404, "NOT_FOUND", "no Fleet Engine method for \(request.method) \(request.path)")
        }
        let provider = parts[1]
        let id = parts[3]
        let fault = faults.fault(for: method.resourceKind).flatMap { $0.fault.isFleetEngine ? $0.fault : nil }
        if fault == .fleetEngineUnavailable {
            return Self.error(503, "UNAVAILABLE", "The service is currently unavailable (injected fault).")
        }
        if request.bodyTooLarge {
            return Self.error(400, "INVALID_ARGUMENT", "request body over \(RouteRequest.maximumBody) bytes")
        }
        guard let token = request.authorization.flatMap(Self.bearerToken) else {
            return Self.error(
                401, "UNAUTHENTICATED",
                "Request is missing a bearer token: the SDK sends its JWT as Authorization: Bearer <token>.")
        }
        if fault == .revokedKey {
            return Self.error(
                401, "UNAUTHENTICATED",
                "JWT signature does not verify: its signing key was deleted from \(account) (injected fault: revoked key)."
            )
        }
        let claims: PresentedClaims
        switch await verify(token) {
        case .success(let verified): claims = verified
        case .failure(let problem): return Self.error(401, "UNAUTHENTICATED", problem.message)
        }
        let skew = fault == .clockSkew ? TimeInterval(Fault.fleetEngineSkewSeconds) : 0
        if let problem = Self.timeProblem(claims, now: clock.now().addingTimeInterval(-skew)) {
            return Self.error(
                401, "UNAUTHENTICATED",
                problem + (skew > 0 ? " (injected fault: Fleet Engine's clock is \(Int(skew) / 60) min behind)" : ""))
        }
        // Authenticated from here on: what Fleet Engine logs.
        let answer = authorized(claims, method: method, provider: provider, id: id, body: request.body)
        log?.write(method, provider: provider, id: id, at: clock.now(), status: answer.status, error: answer.refusal)
        return answer.response
    }

    /// The answer to a call whose token authenticated: the project, the `authorization` claim
    /// and the resource's existence checked.
    private func authorized(
        _ claims: PresentedClaims, method: FleetEngineMethod, provider: String, id: String, body: Data
    )
        -> (response: RouteResponse, status: Int, refusal: (code: String, message: String)?)
    {
        let resource = method.resource(provider: provider, id: id)
        func refused(_ status: Int, _ code: String, _ message: String) -> (RouteResponse, Int, (String, String)?) {
            (Self.error(status, code, message), status, (code, message))
        }
        if let project, provider.lowercased() != project {
            return refused(
                403, "PERMISSION_DENIED",
                "the token's service account \(account) belongs to project \(project), not \(resource)")
        }
        if let problem = Self.authorizationProblem(claims.authorization, method: method, id: id, resource: resource) {
            return refused(403, "PERMISSION_DENIED", problem)
        }
        guard resources.contains(method.resourceKind, id: id) else {
            return refused(404, "NOT_FOUND", "\(resource) was not found")
        }
        return (Self.resource(resource, method: method, body: body), 200, nil)
    }

    // MARK: - Checks

    struct Problem: Error { var message: String }

    /// The signature, checked once per token: a fleet's SDKs call every 10 seconds with tokens
    /// that live an hour. Only the fact is kept (the token's SHA-256); the claims are read again
    /// from the token at each call, which costs microseconds and no memory per token.
    private func verify(_ token: String) async -> Result<PresentedClaims, Problem> {
        let digest = SHA256.hash(data: Data(token.utf8))
        if verified.contains(digest), let claims = PresentedClaims(unverified: token) { return .success(claims) }
        do {
            let claims = try await keys.verify(token, as: PresentedClaims.self)
            verified.insert(digest)
            return .success(claims)
        } catch {
            let reason = (error as? JWTError).map { "\($0.errorType)" } ?? "not a JWT"
            return .failure(
                Problem(message: "JWT signature does not verify against the keys of \(account) (\(reason))."))
        }
    }

    /// The token of `Bearer TOKEN` (the scheme in any case), or nil. Sliced, not trimmed through
    /// Foundation: it runs on every call.
    static func bearerToken(_ header: String) -> String? {
        let bytes = header.utf8
        guard bytes.count > 7, zip(bytes.prefix(7), "bearer ".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        let space = UInt8(ascii: " ")
        let rest = bytes.dropFirst(7)
        guard let first = rest.firstIndex(where: { $0 != space }), let last = rest.lastIndex(where: { $0 != space })
        else { return nil }
        return String(Substring(header.utf8[first...last]))
    }

    static func timeProblem(_ claims: PresentedClaims, now: Date) -> String? {
        guard claims.aud?.stringValue == FleetEngineLimits.audience else {
            return "JWT aud is \(claims.aud?.description ?? "missing"), expected \(FleetEngineLimits.audience)"
        }
        guard case .int(let iat)? = claims.iat, case .int(let exp)? = claims.exp else {
            return "JWT iat and exp must both be integers"
        }
        let seconds = now.timeIntervalSince1970
        // Doubles and `wholeSeconds`: a token's integers may be anything, and no sum may trap.
        if Double(iat) - seconds > FleetEngineLimits.allowedSkew {
            let ahead = InputBounds.wholeSeconds(Double(iat) - seconds)
            return
                "JWT iat is \(ahead) s in the future, beyond \(Int(FleetEngineLimits.allowedSkew)) s of allowed clock skew"
        }
        if Double(exp) <= seconds {
            return "JWT expired \(InputBounds.wholeSeconds(seconds - Double(exp))) s ago"
        }
        let (lifetime, overflow) = exp.subtractingReportingOverflow(iat)
        if overflow || lifetime > FleetEngineLimits.maximumLifetime || lifetime < 0 {
            return
                "JWT lifetime exp - iat is \(overflow ? "beyond any" : "\(lifetime) s"), not within 0 to \(FleetEngineLimits.maximumLifetime) s"
        }
        return nil
    }

    /// Which claim a method needs, and whether it names the path's ID.
    static func authorizationProblem(
        _ claim: JSONValue?, method: FleetEngineMethod, id: String,
        resource: String
    ) -> String? {
        let needed = method.resourceKind.claimName
        guard case .object(let authorization)? = claim, !authorization.isEmpty else {
            return "the token has no authorization claim, so it may not call \(method.rawValue)"
        }
        guard let value = authorization[needed] else {
            let has = authorization.keys.sorted().map { "authorization.\($0)" }.joined(separator: ", ")
            return "a token with \(has) may not call \(method.rawValue): it needs authorization.\(needed)"
        }
        guard let claimed = value.stringValue else { return "authorization.\(needed) is not a string" }
        guard claimed == id || claimed == "*" else {
            return "authorization.\(needed) is \"\(claimed)\", which does not cover \(resource)"
        }
        return nil
    }

    // MARK: - Answers

    /// The resource, as the method's REST reference names its fields: only what the call touched.
    static func resource(_ name: String, method: FleetEngineMethod, body: Data) -> RouteResponse {
        var object: JSONObject = ["name": .string(name)]
        if method.isWrite, case .object(let sent)? = try? JSONValue.decode(body), let location = sent["lastLocation"] {
            object["lastLocation"] = location
        }
        return RouteResponse(
            status: 200, headers: [RouteResponse.jsonType, RouteResponse.noStore],
            body: Data(JSONValue.object(object).description.utf8))
    }

    static func error(_ code: Int, _ status: String, _ message: String) -> RouteResponse {
        let body = JSONValue.object([
            "error": .object(["code": .int(Int64(code)), "message": .string(message), "status": .string(status)])
        ])
        return RouteResponse(
            status: code, headers: [RouteResponse.jsonType, RouteResponse.noStore], body: Data(body.description.utf8))
    }
}

/// The claims the emulator reads, each optional: a token without one is refused in words, not
/// by a decoding error.
struct PresentedClaims: JWTPayload {
    // Any JSON at all: a claim of the wrong type is refused by name below, where a typed field
    // would fail the decoding and read as a bad signature.
    var aud: JSONValue?
    var iat: JSONValue?
    var exp: JSONValue?
    var authorization: JSONValue?

    /// The checks are the emulator's own, so each refusal can name its claim.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

// In an extension, so the memberwise initialiser stays.
extension PresentedClaims {
    /// The claims of a token whose signature was checked before, read without checking it again.
    init?(unverified token: String) {
        guard case .object(let claims)? = try? JWTInspector.decode(token).claims else { return nil }
        aud = claims["aud"]
        iat = claims["iat"]
        exp = claims["exp"]
        authorization = claims["authorization"]
    }
}

/// The IDs the server has minted tokens for, by kind.
final class KnownResources: Sendable {
    /// A run's IDs grow only by switches (keys, scenarios), so a million a kind is a long demo; past
    /// it the set starts over, and an ID forgotten exists again at its next token (within a lifetime).
    static let limit = 1_000_000
    // Guards the sets; written on every mint, read on every Fleet Engine call.
    private let ids = Mutex<[ProviderKind: Set<String>]>([:])

    func add(_ kind: ProviderKind, id: String) {
        ids.withLock { ids in
            if ids[kind]?.count ?? 0 >= Self.limit, ids[kind]?.contains(id) == false { ids[kind] = [] }
            ids[kind, default: []].insert(id)
        }
    }
    func contains(_ kind: ProviderKind, id: String) -> Bool { ids.withLock { $0[kind]?.contains(id) ?? false } }
}

/// Tokens whose signature has been checked, by their SHA-256: 32 bytes and a set slot each, not
/// the decoded claims, which 100,000 SDKs' tokens would hold for an hour.
final class VerifiedTokens: Sendable {
    /// Beyond this many, the set starts over: 200,000 tokens is two hours of a 100,000-SDK fleet.
    static let limit = 200_000
    // Guards the set; read and written by concurrent calls.
    private let digests = Mutex<Set<SHA256Digest>>([])

    func contains(_ digest: SHA256Digest) -> Bool { digests.withLock { $0.contains(digest) } }

    func insert(_ digest: SHA256Digest) {
        digests.withLock { digests in
            if digests.count >= Self.limit { digests.removeAll(keepingCapacity: true) }
            digests.insert(digest)
        }
    }
}
