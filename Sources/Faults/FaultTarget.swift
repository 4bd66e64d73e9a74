import ProviderVocabulary

/// Which kinds' token routes a fault applies to on the server (`PUT /faults/TARGET/NAME`).
/// Faults apply by kind: a fault on the trip route leaves tracking tokens alone.
public enum FaultTarget: String, Sendable, CaseIterable {
    case consumer, driver, both
    case deliveryConsumer = "delivery_consumer"
    case deliveryDriver = "delivery_driver"
    /// Both last-mile kinds, as `both` is both on-demand ones.
    case deliveries

    public var kinds: [ProviderKind] {
        switch self {
        case .consumer: [.consumer]
        case .driver: [.driver]
        case .both: [.consumer, .driver]
        case .deliveryConsumer: [.deliveryConsumer]
        case .deliveryDriver: [.deliveryDriver]
        case .deliveries: [.deliveryConsumer, .deliveryDriver]
        }
    }

    /// The target for one kind alone.
    public init(_ kind: ProviderKind) {
        switch kind {
        case .consumer: self = .consumer
        case .driver: self = .driver
        case .deliveryConsumer: self = .deliveryConsumer
        case .deliveryDriver: self = .deliveryDriver
        }
    }

    /// The kinds of `solution` on the sides `scope` names: what the dashboard and scenarios switch.
    public init(_ scope: RoleScope, in solution: ProviderKind.Solution) {
        switch scope {
        case .consumer: self.init(solution.consumerKind)
        case .driver: self.init(solution.driverKind)
        case .both: self = solution == .onDemand ? .both : .deliveries
        }
    }
}
