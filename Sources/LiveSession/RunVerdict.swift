import Fleet
import Foundation
import ProviderVocabulary

/// What a run says of its SDKs when it ends, as a health check reads it: the SDKs a ramp never
/// started (nothing was asked of them) and those holding no valid token. Either fails the run.
public struct RunVerdict: Sendable {
    public typealias Missing = (kind: ProviderKind, id: String, lastError: String?)

    public let shortfall: RampShortfall?
    public let missing: [Missing]

    public init(shortfall: RampShortfall?, missing: [Missing]) {
        self.shortfall = shortfall
        self.missing = missing
    }

    public var failed: Bool { shortfall != nil || !missing.isEmpty }

    /// The lines for stderr, each to follow the command's own prefix: how many never asked and
    /// why, then the first SDK without a token and what it last met.
    public var lines: [String] {
        var lines = shortfall.map { ["ramp: \($0.description)"] } ?? []
        if let first = missing.first {
            let cause = first.lastError.map { ": \($0)" } ?? ""
            let more = missing.count > 1 ? " (and \(missing.count - 1) more)" : ""
            lines.append("\(first.kind.idNoun) \(first.id) ended without a valid token\(cause)\(more)")
        }
        return lines
    }
}

extension BackendSession {
    /// The verdict at `now`: judged before the server stops, while the calls the ramp's window
    /// holds are still out, as a health check asks whether every SDK holds a token at the run's end.
    public func verdict(ramp: FleetRamp, at now: Date) async -> RunVerdict {
        var missing: [RunVerdict.Missing] = []
        for role in roles { missing += await group(role).withoutValidToken(at: now) }
        return RunVerdict(shortfall: await rampShortfall(ramp), missing: missing)
    }

    /// Each running kind's SDKs that made their first call, and all of them: the summary's counts.
    public func startedByKind() async -> [ProviderKind: (started: Int, sdks: Int)] {
        var started: [ProviderKind: (started: Int, sdks: Int)] = [:]
        for role in roles {
            let group = group(role)
            started[group.kind] = (await group.started, await group.count)
        }
        return started
    }

    /// Waits for `loops` to end, or `grace` at most. Not a task group: a group waits for all its
    /// children, and a call no backend answers keeps the loops' task from ending.
    public static func settle(_ loops: Task<Void, Never>, within grace: Duration) async {
        let (ended, end) = AsyncStream<Never>.makeStream()
        Task {
            await loops.value
            end.finish()
        }
        Task {
            try? await Task.sleep(for: grace)
            end.finish()
        }
        for await _ in ended {}
    }
}
