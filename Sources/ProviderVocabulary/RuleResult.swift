import Foundation

/// How much one rule's outcome matters. Ordered: a verdict is as bad as its worst result.
public enum RuleLevel: Int, Sendable, Comparable, CaseIterable {
    case ok
    /// Neither pass nor fail: something could not be checked, or a fact worth knowing.
    case note
    /// Fleet Engine accepts the token, but something is off (clock skew, a wildcard, a short lifetime).
    case warn
    /// Fleet Engine refuses the token, or the provider cannot use it.
    case fail

    public static func < (a: RuleLevel, b: RuleLevel) -> Bool { a.rawValue < b.rawValue }

    /// The mark `decode` and the pane print before a result.
    public var symbol: String {
        switch self {
        case .ok: "✓"
        case .note: "·"
        case .warn: "!"
        case .fail: "✗"
        }
    }

    public var name: String {
        switch self {
        case .ok: "ok"
        case .note: "note"
        case .warn: "warn"
        case .fail: "fail"
        }
    }
}

/// One rule's outcome on one token, with the one-line reason a person reads.
public struct RuleResult: Sendable, Equatable, CustomStringConvertible {
    public var rule: Rule
    public var level: RuleLevel
    public var reason: String

    public init(_ rule: Rule, _ level: RuleLevel, _ reason: String) {
        self.rule = rule
        self.level = level
        self.reason = reason
    }

    public var description: String { "\(level.symbol) \(rule.name): \(reason)" }
}

extension Array where Element == RuleResult {
    /// The worst level among the results; `.ok` for none.
    public var worst: RuleLevel { map(\.level).max() ?? .ok }
    public var failures: [RuleResult] { filter { $0.level == .fail } }
}

/// Equal lists of findings share one copy (`FindingsPool`, in TokenProviders).
extension RuleResult: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rule)
        hasher.combine(level)
        hasher.combine(reason)
    }
}
