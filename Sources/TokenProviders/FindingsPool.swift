import ProviderVocabulary
import Synchronization

/// One copy of each distinct list of findings, shared by every token that carries it. The tokens
/// of one backend say the same things (the clock's verdict, the signature checked against the
/// same key set), so a fleet of 100,000 members holds a handful of lists instead of 100,000 copies
/// of the same sentences. Bounded: once `capacity` lists are held, a new one is kept by its token
/// alone, so a backend that says something new every time cannot grow the pool.
public final class FindingsPool: Sendable {
    public static let shared = FindingsPool()
    public static let capacity = 256

    // Guards the pooled lists; interned from every provider's fetch completion.
    private let lists = Mutex<Set<[RuleResult]>>([])

    public init() {}

    /// The pooled copy of `findings` (the same storage for every equal list), or `findings` itself
    /// when the pool is full.
    public func intern(_ findings: [RuleResult]) -> [RuleResult] {
        if findings.isEmpty { return findings }
        return lists.withLock { pool in
            if let pooled = pool.firstIndex(of: findings).map({ pool[$0] }) { return pooled }
            if pool.count < Self.capacity { pool.insert(findings) }
            return findings
        }
    }

    /// Lists held now.
    public var count: Int { lists.withLock { $0.count } }
}
