import FleetEngineAPI
import Foundation
import Pacing
import ProviderVocabulary

/// A run's two paces toward its backends: the ramp's first token calls, and the SDKs' Fleet
/// Engine calls, which give way to the ramp while it backs off. Both kinds' groups share them,
/// as they share the backend and Fleet Engine.
public struct FleetPacing: Sendable {
    public let ramp: Pacer
    public let fleetEngine: CallBudget

    /// `ramp` for `total` SDKs sets the ramp's ceiling; Fleet Engine's is its run-wide maximum rate.
    public init(
        ramp: FleetRamp = FleetRamp(duration: 1), total: Int = Int(FleetRamp.defaultRate),
        fetchTimeout: TimeInterval = 10,
        fleetEngineTimeout: TimeInterval = 10
    ) {
        let rampPacer = Pacer(
            RateControl(ceiling: ramp.spreads ? ramp.rate(count: total) : FleetRamp.defaultRate, timeout: fetchTimeout))
        self.ramp = rampPacer
        fleetEngine = CallBudget(
            ceiling: FleetEngineTarget.maximumRate, timeout: fleetEngineTimeout, givingWayTo: rampPacer)
    }
}
