import Foundation
import ProviderVocabulary
import Synchronization

/// A transport that answers from a closure and counts what it was asked.
public final class FakeTransport: TokenTransport {
    public typealias Responder = @Sendable (TransportRequest) async throws -> TransportResponse
    private let responder: Responder
    // Guards the list of requested URLs; fetches run on many tasks at once.
    private let requests = Mutex<[URL]>([])

    public init(_ responder: @escaping Responder) { self.responder = responder }

    public var count: Int { requests.withLock { $0.count } }
    public var urls: [URL] { requests.withLock { $0 } }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        requests.withLock { $0.append(request.url) }
        return try await responder(request)
    }
}

/// Holds fetches until the test lets them go, so "in flight" is a state the test controls.
public actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init() {}

    public func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    public func open() {
        isOpen = true
        for w in waiters { w.resume() }
        waiters.removeAll()
    }
}

/// The ID a request asked for: the last path component of the sample-backend routes.
public func requestedID(_ request: TransportRequest) -> String { request.url.lastPathComponent }

/// A backend that mints a valid token for whatever ID is asked, `lifetime` seconds from the clock's
/// now, numbering the signatures (`sig1`, `sig2`, …) so tests can tell a new token from a cached one.
public func mintingTransport(
    kind: ProviderKind, clock: any ProviderClock = SystemClock(), lifetime: Int = 3600,
    gate: Gate? = nil
) -> FakeTransport {
    let serial = Mutex(0)
    return FakeTransport { request in
        if let gate { await gate.wait() }
        let n = serial.withLock {
            $0 += 1
            return $0
        }
        let now = Int(clock.now().timeIntervalSince1970)
        let jwt = TestJWT.make(
            kind: kind, id: requestedID(request), iat: now, exp: now + lifetime, signature: "sig\(n)")
        return TestJWT.response(jwt, expiresAtSeconds: now + lifetime)
    }
}
