import Dashboard

/// Carries out the reducer's effects (refresh, switch an ID, set a fault, load a theme...) and
/// answers with actions. It holds no state of the dashboard's: what to act on travels in the effect.
public protocol EffectPerformer: Sendable {
    func perform(_ effect: Effect) async -> [Action]
}
