import Fleet
import FleetTables
import Foundation
import ProviderVocabulary
import Testing

@testable import Dashboard
@testable import UICore

/// The fleet table's keys: selection, follow, filter, trouble, follow by ID.
@Suite(.timeLimit(.minutes(15))) struct FleetTableTests {
    func key(_ state: inout DashboardState, _ k: Key) -> [Effect] { Fixtures.apply(&state, .key(k)) }
    func type(_ state: inout DashboardState, _ text: String) { for c in text { _ = key(&state, .character(c)) } }
    func rows(_ state: DashboardState) -> [FleetMemberRow] { state.tables[.consumer]?.rows ?? [] }

    @Test func theTableListsTroubleFirst() {
        let s = FleetFixtures.state()
        #expect(
            rows(s).prefix(8).map(\.id) == [
                "trip-00007", "trip-09999", "trip-00042", "trip-00100", "trip-x0500",
                "trip-00004", "trip-00006", "trip-01234",
            ])
        // Then those whose token Fleet Engine answered with anything but OK (their cache is ok),
        // before the stale one.
        #expect(
            rows(s).prefix(9).map(\.status) == [
                .failing, .failing, .backingOff, .expired, .noToken, .ok, .ok, .stale, .ok,
            ])
        #expect(rows(s)[5...6].map(\.fleetEngine) == ["PERMISSION_DENIED", "UNAVAILABLE"])
        // Then the soonest expiry first.
        let expiries = rows(s).dropFirst(8).compactMap(\.expiresAt)
        #expect(expiries.count == rows(s).count - 8 && expiries == expiries.sorted())
        #expect(rows(s).count == FleetTable.rowLimit)
    }

    @Test func arrowsMoveTheSelectionAndEnterFollowsIt() throws {
        var s = FleetFixtures.state()
        let rows = rows(s)
        #expect(key(&s, .down) == [], "arrows move the table's selection, not the followed member")
        #expect(s.tables[.consumer]?.selected == rows[1].index)
        _ = key(&s, .character("j"))
        #expect(s.tables[.consumer]?.selected == rows[2].index)
        _ = key(&s, .up)
        _ = key(&s, .character("k"))
        _ = key(&s, .up)
        #expect(s.tables[.consumer]?.selected == rows[0].index, "the top row stays selected")
        _ = key(&s, .down)
        #expect(key(&s, .enter) == [.follow(.consumer, index: 9998)])
        #expect(s.consumer.memberIndex == 9998)
        // The selection sticks to its member when the rows are sorted anew.
        Fixtures.apply(&s, FleetFixtures.tables(filter: ""))
        #expect(s.tables[.consumer]?.selected == 9998)
        #expect(key(&s, .character("]")) == [.follow(.consumer, index: 9999)], "] still moves one member")
    }

    @Test func aNewlyFollowedMemberShowsItsCachedTokenAtOnce() throws {
        var s = FleetFixtures.state()
        #expect(key(&s, .enter) == [.follow(.consumer, index: 6)])
        let token = Fixtures.token(
            .consumer, id: "trip-00007", issued: FleetFixtures.t0.addingTimeInterval(20), lifetime: 300)
        let member = MemberSnapshot(
            id: "trip-00007", token: token, lastError: "backend answered HTTP 500 Internal Server Error: boom")
        Fixtures.apply(&s, .following(.consumer, index: 6, member: member))
        #expect(s.consumer.id == "trip-00007")
        #expect(s.consumer.token == token)
        let text = Fixtures.text(s)
        #expect(text.contains("Trip ID    trip-00007  (7 of 10000)  ● stale"))
        #expect(text.contains("Token      #\(token.fingerprint)"))
        #expect(!text.contains("none yet"))
        #expect(text.contains("Last error backend answered HTTP 500 Internal Server Error: boom"))
        #expect(text.contains("cached token"))
        // A member with a fetch in flight and nothing cached says so.
        _ = key(&s, .character("]"))
        Fixtures.apply(&s, .following(.consumer, index: 7, member: MemberSnapshot(id: "trip-00008", fetching: true)))
        #expect(Fixtures.text(s).contains("Trip ID    trip-00008  (8 of 10000)  ● fetching"))
    }

    @Test func nAndShiftNFollowTheMembersInTrouble() {
        var s = FleetFixtures.state()
        var order: [Int] = []
        for _ in 0..<9 {
            guard case .follow(_, let index) = key(&s, .character("n")).first else {
                Issue.record("n did not follow")
                return
            }
            order.append(index)
        }
        #expect(
            order == [6, 9998, 41, 99, 499, 3, 5, 1233, 6],
            "in the table's order, Fleet Engine's refusals too, round again")
        #expect(s.tables[.consumer]?.selected == 6, "the selection goes along")
        #expect(key(&s, .character("N")) == [.follow(.consumer, index: 1233)])
        #expect(
            key(&s, .character("N")) == [.follow(.consumer, index: 5)], "a member Fleet Engine refused is trouble too")
        // With nothing in trouble, n says so.
        _ = key(&s, .tab)
        _ = key(&s, .character("/"))
        type(&s, "00042")
        _ = key(&s, .enter)
        #expect(key(&s, .character("n")) == [])
        #expect(s.message == "no vehicle ID in trouble matching \"00042\"")
    }

    @Test func slashFiltersTheTableAndEscClearsIt() {
        var s = FleetFixtures.state()
        #expect(key(&s, .character("/")) == [])
        #expect(s.overlay == .filter(""))
        type(&s, "0004,")
        #expect(s.overlay == .filter("0004", note: "\",\" is not allowed in a Fleet Engine ID (none of / : ? , #)"))
        #expect(Fixtures.text(s).contains("ID contains: 0004█"))
        #expect(key(&s, .enter) == [.queryTables([.consumer: "0004"])])
        #expect(s.overlay == .none)
        // Before the aggregate answers, the rows held are cut to the filter.
        #expect(!rows(s).isEmpty && rows(s).allSatisfy { $0.id.contains("0004") })
        Fixtures.apply(&s, FleetFixtures.tables(filter: "0004"))
        #expect(rows(s).map(\.id).sorted() == ["trip-00004"] + (40...49).map { "trip-000\($0)" })
        #expect(s.tables[.consumer]?.latest.matching == 11)
        // A table made before the filter reached the aggregate is not shown.
        Fixtures.apply(&s, FleetFixtures.tables(filter: ""))
        #expect(rows(s).count == 11)
        // Each second's rows ask for the tables again, under the filter the viewer keeps.
        #expect(Fixtures.apply(&s, .fleet(s.fleet)) == [.queryTables([.consumer: "0004"])])
        // The prompt opens with the filter; Esc clears it, and the tables are asked for without it.
        _ = key(&s, .character("/"))
        #expect(s.overlay == .filter("0004"))
        #expect(key(&s, .escape) == [.queryTables([:])])
        #expect(s.tables[.consumer]?.filter == "")
        _ = key(&s, .character("/"))
        #expect(key(&s, .escape) == [], "nothing to clear")
    }

    @Test func iInAFleetFollowsTheMemberWithThatID() {
        var s = FleetFixtures.state()
        _ = key(&s, .character("i"))
        #expect(Fixtures.text(s).contains("Follow trip ID"))
        type(&s, "trip-00042")
        #expect(key(&s, .enter) == [.findMember(.consumer, id: "trip-00042", from: 0)])
        #expect(
            Fixtures.apply(&s, .memberFound(.consumer, id: "trip-00042", index: 41, from: 0)) == [
                .follow(.consumer, index: 41)
            ])
        #expect(s.consumer.memberIndex == 41)
        _ = key(&s, .character("i"))
        type(&s, "nope")
        #expect(key(&s, .enter) == [.findMember(.consumer, id: "nope", from: 41)])
        #expect(Fixtures.apply(&s, .memberFound(.consumer, id: "nope", index: nil, from: 41)) == [])
        #expect(s.message == "trip ID nope is not in this fleet of 10000")
        #expect(s.consumer.memberIndex == 41)
        // An answer after the user moved on is dropped.
        _ = key(&s, .character("]"))
        #expect(Fixtures.apply(&s, .memberFound(.consumer, id: "trip-00001", index: 0, from: 41)) == [])
        #expect(s.consumer.memberIndex == 42)
    }

    @Test func twentyPressesOfBracketLandTwentyMembersOn() {
        var s = Fixtures.state(trips: 30, vehicles: 2)
        var effects: [Effect] = []
        for _ in 0..<20 { effects += key(&s, .character("]")) }
        #expect(effects == (1...20).map { .follow(.consumer, index: $0) })
        // Answers come back in any order; only the last press's applies.
        for index in [20, 3, 19] {
            Fixtures.apply(
                &s,
                .following(
                    .consumer, index: index,
                    member: MemberSnapshot(id: IDSequence.fleetID(prefix: "trip", index: index, count: 30))))
        }
        #expect(s.consumer.id == "trip-0021")
        #expect(Fixtures.text(s).contains("Trip ID    trip-0021  (21 of 30)"))
    }

    @Test func fleetRowsCountStatesAndColourOnlyRecentErrors() {
        let s = FleetFixtures.state()
        let canvas = Renderer.render(s, width: 160, height: 48)
        let lines = canvas.lines
        #expect(
            lines[1].hasPrefix(
                " fleet (60 s)    SDKs   req/s hit ratio errors err rate  p50 ms  p99 ms refresh due failing backing off expired no token stale    ok"
            ))
        // 10,000 trips, two failing, one backing off, one expired, one without a token, one stale.
        #expect(lines[2].hasSuffix("      2           1       1        1     1  9994"))
        // The vehicles' one error is within the minute: coloured.
        let errorsColumn = 1 + 13 + 1 + 6 + 1 + 7 + 1 + 9 + 1 + 5
        #expect(lines[3].hasPrefix(" vehicles       10000"))
        #expect(canvas[errorsColumn, 3] == Cell("1", role: .warning))
        // The trips' error 80 s ago is in the total, not in the minute's figures.
        #expect(s.fleet[.consumer]?.counters.errors == 5)
        #expect(s.fleet[.consumer]?.window.errors == 4)
        // Without an error in the minute, nothing is coloured, whatever happened before.
        var quiet = s
        quiet.fleet[.driver]?.window.errors = 0
        #expect(Renderer.render(quiet, width: 160, height: 48)[errorsColumn, 3] == Cell("0", role: .text))
    }
}
