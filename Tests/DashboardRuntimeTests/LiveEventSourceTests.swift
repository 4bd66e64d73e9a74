import Dashboard
import Fleet
import FleetAuth
import Foundation
import TestSupport
import Testing

@testable import DashboardRuntime

/// The live providers as an event source: every event reaches the inbox, a fleet gets its rows.
@Suite(.timeLimit(.minutes(3))) struct LiveEventSourceTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// Drains the inbox until `done` holds for what arrived; the suite's time limit ends a wait
    /// for what never comes.
    func collect(_ inbox: ActionInbox, until done: ([Action]) -> Bool) async -> [Action] {
        var seen: [Action] = []
        let arrived = await eventually {
            seen += inbox.drain()
            return done(seen)
        }
        if !arrived { Issue.record("cancelled; saw \(seen.count) actions") }
        return seen
    }

    @Test func everyProviderEventArrivesInOrder() async {
        let broadcaster = EventBroadcaster()
        let source = LiveEventSource(broadcaster: broadcaster, counts: [.consumer: 1, .driver: 1])
        let inbox = ActionInbox()
        let task = Task { await source.run(into: inbox) }
        // Published before the source's task runs: subscribing at init means none is lost.
        for i in 0..<500 {
            broadcaster.publish(
                ProviderEvent(
                    time: Self.t0.addingTimeInterval(Double(i)), provider: .consumer, id: "trip-1",
                    kind: .fetchStarted(reason: .noToken)))
        }
        let seen = await collect(inbox) { $0.count >= 500 }
        task.cancel()
        let times = seen.compactMap { action -> Date? in if case .event(let e) = action { e.time } else { nil } }
        #expect(times.count == 500)
        #expect(times == times.sorted())
        #expect(!seen.contains { if case .fleet = $0 { true } else { false } }, "no fleet rows without a fleet")
    }

    @Test func aFleetGetsRowsCountingEveryMember() async {
        let broadcaster = EventBroadcaster()
        let clock = ManualClock(Self.t0)
        let source = LiveEventSource(
            broadcaster: broadcaster, counts: [.consumer: 3, .driver: 1], clock: clock,
            summaryInterval: .milliseconds(10))
        let inbox = ActionInbox()
        let task = Task { await source.run(into: inbox) }
        for id in ["trip-1", "trip-2", "trip-3"] {
            broadcaster.publish(
                ProviderEvent(time: Self.t0, provider: .consumer, id: id, kind: .fetchStarted(reason: .noToken)))
        }
        let seen = await collect(inbox) { actions in
            actions.contains {
                if case .fleet(let rows) = $0 { rows[.consumer]?.counters.requests == 3 } else { false }
            }
        }
        task.cancel()
        let rows = seen.compactMap { action -> [ProviderKind: FleetSummary]? in
            if case .fleet(let r) = action { r } else { nil }
        }.last
        #expect(rows?[.consumer]?.providers == 3)
        #expect(rows?[.driver]?.providers == 1)
    }

    /// Member tables come with the rows, made under the filter the effect set; a filter searches
    /// every member, not just the rows sent before.
    @Test func aFleetGetsMemberTablesAndAFilterReachesTheAggregate() async throws {
        let broadcaster = EventBroadcaster()
        let clock = ManualClock(Self.t0)
        let trips = (1...600).map { "trip-\($0)" }
        let source = LiveEventSource(
            broadcaster: broadcaster, members: [.consumer: trips, .driver: ["vehicle-1"]], clock: clock,
            summaryInterval: .milliseconds(10))
        let inbox = ActionInbox()
        let task = Task { await source.run(into: inbox) }
        broadcaster.publish(
            ProviderEvent(
                time: Self.t0, provider: .consumer, id: "trip-600",
                kind: .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.01)))
        func tables(_ actions: [Action]) -> [[ProviderKind: FleetTable]] {
            actions.compactMap { if case .fleetTables(let t) = $0 { t } else { nil } }
        }
        let seen = await collect(inbox) { tables($0).contains { $0[.consumer]?.rows.first?.id == "trip-600" } }
        let first = try #require(tables(seen).last?[.consumer])
        #expect(first.matching == 600)
        #expect(first.rows.count == FleetTable.rowLimit, "capped, trouble first")
        #expect(first.rows.first?.index == 599 && first.rows.first?.status == .backingOff)
        // The answer to the effect comes at once, made under the new filter, over all 600.
        let answer = source.setTableFilter("-59", for: .consumer)
        guard case .fleetTables(let filtered)? = answer.first, let table = filtered[.consumer] else {
            Issue.record("no tables in \(answer)")
            return
        }
        #expect(table.filter == "-59")
        #expect(table.rows.map(\.id) == ["trip-59"] + (590...599).map { "trip-\($0)" })
        #expect(filtered[.driver]?.filter == "", "the other kind's table is unfiltered")
        // And so are the tables of every second after.
        _ = inbox.drain()
        let later = await collect(inbox) { !tables($0).isEmpty }
        #expect(tables(later).last?[.consumer]?.filter == "-59")
        task.cancel()
    }
}
