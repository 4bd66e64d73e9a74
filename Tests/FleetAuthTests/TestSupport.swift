import FleetAuth
import Foundation
import Synchronization

/// A transport that answers from a closure and counts what it was asked.
final class FakeTransport: TokenTransport {
    typealias Responder = @Sendable (TransportRequest) async throws -> TransportResponse
    private let responder: Responder
    // Guards the list of requested URLs; fetches run on many tasks at once.
    private let requests = Mutex<[URL]>([])

    init(_ responder: @escaping Responder) { self.responder = responder }

    var count: Int { requests.withLock { $0.count } }
    var urls: [URL] { requests.withLock { $0 } }

    func get(_ request: TransportRequest) async throws -> TransportResponse {
        requests.withLock { $0.append(request.url) }
        return try await responder(request)
    }
}

/// Holds fetches until the test lets them go, so "in flight" is a state the test controls.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for w in waiters { w.resume() }
        waiters.removeAll()
    }
}

enum TestJWT {
    static func encode(_ object: [String: Any]) -> String {
        // Sorted keys keep tokens byte-identical between runs.
        JWTInspector.base64URLEncode((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    /// A Fleet-Engine-shaped token; the signature is not real, the provider core does not verify it.
    static func make(kind: ProviderKind, id: String, iat: Int, exp: Int,
                     aud: String = JWTInspector.fleetEngineAudience, alg: String = "RS256",
                     signature: String = "c2lnbmF0dXJlLXRlc3Q") -> String {
        let header = encode(["alg": alg, "typ": "JWT", "kid": "test-key"])
        let claims = encode([
            "iss": "test@tokendash.iam.gserviceaccount.com", "sub": "test@tokendash.iam.gserviceaccount.com",
            "aud": aud, "iat": iat, "exp": exp, "authorization": [kind.claimName: id],
        ])
        return "\(header).\(claims).\(signature)"
    }

    /// The backend's JSON answer in Google's sample-backend shape (epoch milliseconds).
    static func response(_ jwt: String, expiresAtSeconds exp: Int, status: Int = 200) -> TransportResponse {
        let body = "{\"jwt\":\"\(jwt)\",\"creationTimestamp\":\(exp * 1000 - 3_600_000),\"expirationTimestamp\":\(exp * 1000)}"
        return TransportResponse(status: status, body: Data(body.utf8))
    }
}

/// The ID a request asked for: the last path component of the sample-backend routes.
func requestedID(_ request: TransportRequest) -> String { request.url.lastPathComponent }

/// A backend that mints a valid token for whatever ID is asked, `lifetime` seconds from the clock's now,
/// numbering tokens so tests can tell a new one from a cached one.
func mintingTransport(kind: ProviderKind, clock: ManualClock, lifetime: Int = 3600, gate: Gate? = nil) -> FakeTransport {
    let serial = Mutex(0)
    return FakeTransport { request in
        if let gate { await gate.wait() }
        let n = serial.withLock { $0 += 1; return $0 }
        let now = Int(clock.now().timeIntervalSince1970)
        let jwt = TestJWT.make(kind: kind, id: requestedID(request), iat: now, exp: now + lifetime, signature: "sig\(n)")
        return TestJWT.response(jwt, expiresAtSeconds: now + lifetime)
    }
}

/// Collects events from a subscription so a test can wait for one without sleeping.
final class EventRecorder: Sendable {
    private let stream: AsyncStream<ProviderEvent>
    // Guards everything seen so far.
    private let seen = Mutex<[ProviderEvent]>([])

    init(_ broadcaster: EventBroadcaster) { stream = broadcaster.subscribe() }

    /// Waits for the next event matching `predicate` (earlier non-matching events are kept in `all`).
    /// Gives up after 10 s of wall time (returning nil) so a missing event fails the test rather than hanging it.
    func next(where predicate: @escaping @Sendable (ProviderEvent) -> Bool) async -> ProviderEvent? {
        await withTaskGroup(of: ProviderEvent?.self) { group in
            group.addTask {
                for await event in self.stream {
                    self.seen.withLock { $0.append(event) }
                    if predicate(event) { return event }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
    var all: [ProviderEvent] { seen.withLock { $0 } }
}

extension ProviderEvent {
    var isFetched: Bool { if case .fetched = kind { return true }; return false }
    var failure: FleetAuthError? { if case .fetchFailed(let e, _) = kind { return e }; return nil }
}

func consumerEndpoint(_ base: String = "http://backend.test") -> TokenEndpoint { .sampleBackend(.consumer, base: base) }
func driverEndpoint(_ base: String = "http://backend.test") -> TokenEndpoint { .sampleBackend(.driver, base: base) }
func trip(_ id: String) -> TripAuthorizationContext { TripAuthorizationContext(tripID: id) }
func vehicle(_ id: String) -> VehicleAuthorizationContext { VehicleAuthorizationContext(vehicleID: id) }

/// Yields until `condition` holds, giving up after `seconds` of wall time so a broken rule fails
/// the test instead of hanging the run. Not a sleep: it returns as soon as the state is reached.
@discardableResult
func eventually(within seconds: Double = 10, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        await Task.yield()
    }
    return false
}
