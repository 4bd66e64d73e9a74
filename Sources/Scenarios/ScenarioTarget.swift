import Faults
import Foundation
import ProviderVocabulary

/// What a scenario drives: the providers and the embedded server. The dashboard implements it
/// over its session; tests over a server and SDKs of their own. Calls return without waiting for
/// the backend's answer (a refresh under a latency fault must not hold the script up), and
/// their effects show as provider events.
public protocol ScenarioTarget: Sendable {
    /// Switches `side` to `id`, or to the next ID of its sequence when nil.
    func switchID(_ side: ScenarioSide, to id: String?) async
    /// nil clears the faults of `scope`.
    func setFault(_ fault: Fault?, _ scope: RoleScope, latencyMilliseconds: Int?) async
    func refresh(_ scope: RoleScope) async
    /// The embedded server's clock runs `seconds` ahead of this machine's (negative: behind).
    func setServerClockOffset(_ seconds: TimeInterval) async
    /// The simulated phones' clock runs `seconds` ahead of this machine's (negative: behind).
    func setDeviceClockOffset(_ seconds: TimeInterval) async
    /// Tokens minted from now on live `seconds`; nil goes back to the server's configured lifetime.
    func setTokenLifetime(_ seconds: TimeInterval?) async
    func setPaused(_ paused: Bool) async
}

extension ScenarioTarget {
    /// Puts back what a scenario may have changed, so a run (or a restart) begins from a normal
    /// backend: no faults, the server's own clock and lifetime, SDKs running.
    public func reset() async {
        await setFault(nil, .both, latencyMilliseconds: nil)
        await setServerClockOffset(0)
        await setDeviceClockOffset(0)
        await setTokenLifetime(nil)
        await setPaused(false)
    }
}
