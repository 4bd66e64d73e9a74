import Dashboard
import Fleet
import FleetTables
import Foundation
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing

@testable import DashboardRuntime

/// The live providers as an event source: every event reaches the inbox, a fleet gets its rows.
@Suite(.timeLimit(.minutes(15))) struct LiveEventSourceTests {
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

    /// The rows come each second; the tables are made when asked, under the filters the request
    /// brings, and a filter searches every member, not just the rows sent before. The source keeps
    /// no filter: a request without one is unfiltered again.
    @Test func aFleetsTablesAreMadeUnderTheFiltersEachRequestBrings() async throws {
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
        // The failure has reached the aggregate once the rows count it.
        let seen = await collect(inbox) { actions in
            actions.contains { if case .fleet(let rows) = $0 { rows[.consumer]?.window.errors == 1 } else { false } }
        }
        task.cancel()
        #expect(!seen.contains { if case .fleetTables = $0 { true } else { false } }, "tables only when asked")
        func table(_ actions: [Action], _ kind: ProviderKind) throws -> FleetTable {
            guard case .fleetTables(let tables)? = actions.first, let table = tables[kind] else {
                throw TableMissing(actions: actions)
            }
            return table
        }
        let first = try table(source.tables(filters: [:]), .consumer)
        #expect(first.matching == 600)
        #expect(first.rows.count == FleetTable.rowLimit, "capped, trouble first")
        #expect(first.rows.first?.index == 599 && first.rows.first?.status == .backingOff)
        let filtered = source.tables(filters: [.consumer: "-59"])
        #expect(try table(filtered, .consumer).filter == "-59")
        #expect(try table(filtered, .consumer).rows.map(\.id) == ["trip-59"] + (590...599).map { "trip-\($0)" })
        #expect(try table(filtered, .driver).filter == "", "the other kind's table is unfiltered")
        #expect(try table(source.tables(filters: [:]), .consumer).matching == 600, "no filter kept")
        // A member is found among all 600, not only the rows of a table.
        #expect(source.memberIndex(.consumer, id: "trip-300") == 299)
        #expect(source.memberID(.consumer, index: 299) == "trip-300")
    }

    struct TableMissing: Error {
        var actions: [Action]
    }
}
