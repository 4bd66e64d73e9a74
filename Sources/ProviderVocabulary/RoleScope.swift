/// One side of the dashboard or both: what a fault, a refresh or a scenario step applies to.
public enum RoleScope: String, Sendable, Hashable, CaseIterable {
    case consumer, driver, both

    /// The side of `kind`'s pane: the left pane is the consumer side in either solution.
    public init(_ kind: ProviderKind) { self.init(kind.role) }

    public init(_ role: ProviderKind.Role) {
        switch role {
        case .consumer: self = .consumer
        case .driver: self = .driver
        }
    }

    /// The roles it covers, consumer first.
    public var roles: [ProviderKind.Role] {
        switch self {
        case .consumer: [.consumer]
        case .driver: [.driver]
        case .both: [.consumer, .driver]
        }
    }

    /// The scope after this one, as the fault menu's Tab cycles them.
    public var next: RoleScope {
        let all = Self.allCases
        return all[((all.firstIndex(of: self) ?? 0) + 1) % all.count]
    }
}
