import Dashboard
import Fleet
import FleetTables
import Foundation
import ProviderVocabulary

/// A recording's actions as a replay applies them: with a tick at each whole second when the
/// recording has none of its own (`watch`'s), so the state's clock follows the recorded time.
/// Playing and seeking both go through `fold`, so a seek lands on the state playing through reaches.
public struct ReplayTimeline: Sendable {
    public let actions: [TimedAction]
    public let start: Date
    public let end: Date
    public let initial: DashboardState
    /// Each kind's members, when a fleet was recorded: the replay's aggregate makes its rows.
    public let members: [ProviderKind: [String]]?
    /// Makes a watcher's marks for the tables (`tap`'s columns and churn), fed the recorded events.
    let makeMarks: (@Sendable () -> any FleetTableMarks)?

    static let longestTickedGap = 3600

    /// `marks` makes what a watcher added to the live tables (`tap`: `TapTableMarks` under the
    /// recorded churn limit); nil when the recording had none.
    public init(_ recording: Recording, initial: DashboardState, marks: (@Sendable () -> any FleetTableMarks)? = nil) {
        makeMarks = marks
        start = recording.start
        end = recording.end
        self.initial = initial
        let ids = recording.header.memberIDs
        // Empty lists: a fleet whose members were learnt from the events (`tap`'s real devices).
        let learnt = !ids.isEmpty && ids.values.allSatisfy(\.isEmpty)
        members = learnt || ids.values.contains { $0.count > 1 } ? ids : nil
        guard !recording.header.ticks else {
            actions = recording.actions
            return
        }
        var merged: [TimedAction] = []
        var second = start.timeIntervalSince1970.rounded(.down) + 1
        for entry in recording.actions {
            // At most an hour of ticks per gap (a token lives at most an hour, so a live run is
            // never quiet longer): one line ten years on must not make 3e8 ticks.
            var ticks = 0
            while Date(timeIntervalSince1970: second) < entry.time && ticks < Self.longestTickedGap {
                merged.append(
                    TimedAction(
                        time: Date(timeIntervalSince1970: second), action: .tick(Date(timeIntervalSince1970: second))))
                second += 1
                ticks += 1
            }
            if Date(timeIntervalSince1970: second) < entry.time {
                second = entry.time.timeIntervalSince1970.rounded(.down) + 1
            }
            merged.append(entry)
        }
        actions = merged
    }

    /// A new aggregate (and marks) for the fleet rows, or nil when no fleet was recorded.
    public func makeAggregate() -> ReplayFleet? {
        guard let members else { return nil }
        let learnt = members.values.allSatisfy(\.isEmpty)
        let aggregate = learnt ? FleetAggregate(learning: Array(members.keys)) : FleetAggregate(members: members)
        return ReplayFleet(aggregate: aggregate, marks: makeMarks?())
    }

    /// What the replay applies for `actions[index]`: the recorded action, and after a tick the
    /// fleet's rows as the aggregate has them then (as the live source sends them each second);
    /// the reducer then asks for the tables under the viewer's filters (`Effect.queryTables`).
    public func applied(_ index: Int, aggregate: ReplayFleet?) -> [Action] {
        let action = actions[index].action
        if case .event(let event) = action { aggregate?.record(event) }
        guard case .tick(let now) = action, let aggregate else {
            return [.recorded(aggregate?.completed(action, at: actions[index].time) ?? action)]
        }
        return [.recorded(action), .fleet(aggregate.summaries(now: now))]
    }

    /// The index of the first action after `time`.
    public func index(after time: Date) -> Int {
        var low = 0
        var high = actions.count
        while low < high {
            let mid = (low + high) / 2
            if actions[mid].time <= time { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The state after every action up to `time`, from the start, and the aggregate as it then
    /// is. Fleet rows and tables are made once, at the last tick, not at every one; the tables
    /// under the filters of the state folded (the recording's, which a replay's viewer follows).
    public func fold(to time: Date) -> (state: DashboardState, aggregate: ReplayFleet?) {
        var state = initial
        let aggregate = makeAggregate()
        let end = index(after: time)
        let lastTick = actions[..<end].lastIndex { if case .tick = $0.action { true } else { false } }
        for i in 0..<end {
            let action = actions[i].action
            if case .event(let event) = action { aggregate?.record(event) }
            _ = Reducer.reduce(&state, .recorded(aggregate?.completed(action, at: actions[i].time) ?? action))
            if i == lastTick, let aggregate, case .tick(let now) = action {
                _ = Reducer.reduce(&state, .fleet(aggregate.summaries(now: now)))
                _ = Reducer.reduce(&state, .fleetTables(aggregate.tables(now: now, filters: state.tableFilters)))
            }
        }
        return (state, aggregate)
    }

    /// The answer a replay's own fleet gives to `effect` at `now`: the tables a query asks for,
    /// the member a pane follows (a tap's with its last hour), the member an ID names.
    public func answer(_ effect: Effect, aggregate: ReplayFleet?, now: Date) -> Action? {
        guard let aggregate else { return nil }
        switch effect {
        case .queryTables(let filters): return .fleetTables(aggregate.tables(now: now, filters: filters))
        case .follow(let kind, let index):
            return aggregate.member(kind, index: index, now: now).map { .following(kind, index: index, member: $0) }
        case .findMember(let kind, let id, let from):
            return .memberFound(kind, id: id, index: aggregate.memberIndex(kind, id: id), from: from)
        default: return nil
        }
    }
}
