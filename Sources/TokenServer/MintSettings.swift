import Foundation
import ProviderVocabulary
import Synchronization

/// What a demo changes about minting while the server runs: how far its clock is off this
/// machine's (minted `iat`/`exp` and the `Date` header move together, so a client's clock-skew
/// rule sees it) and the lifetime of tokens minted from now on.
final class MintSettings: Sendable {
    private let clock: any ProviderClock
    // Guards the offset and the lifetime override; set by the dashboard, read by every token response.
    private let state = Mutex<(offset: TimeInterval, lifetime: TimeInterval?)>((0, nil))

    init(clock: any ProviderClock) { self.clock = clock }

    // The ID each kind's customer provider (`--driver-source`) is on: what `/session/{kind}` mints
    // for, as a backend that reads the trip from the app's session would.
    private let sessions = Mutex<[ProviderKind: String]>([:])

    func sessionID(_ kind: ProviderKind) -> String? { sessions.withLock { $0[kind] } }
    func setSessionID(_ id: String, for kind: ProviderKind) { sessions.withLock { $0[kind] = id } }

    /// The server's time: the clock's, shifted by the offset.
    func now() -> Date { clock.now().addingTimeInterval(state.withLock { $0.offset }) }

    var offset: TimeInterval {
        get { state.withLock { $0.offset } }
        set { state.withLock { $0.offset = newValue } }
    }

    /// nil: the configured lifetime.
    var lifetime: TimeInterval? {
        get { state.withLock { $0.lifetime } }
        set { state.withLock { $0.lifetime = newValue } }
    }
}
