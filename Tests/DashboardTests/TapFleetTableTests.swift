import Fleet
import FleetTables
import Foundation
import ProviderVocabulary
import Testing

@testable import Dashboard
@testable import UICore

/// A tap's fleet table: its real IDs counted as they arrive, and its own columns (fetches/h,
/// tokens, verdict, lifetime, last error or churn) that give way in order on a narrow screen.
@Suite(.timeLimit(.minutes(15))) struct TapFleetTableTests {
    static func lines(_ state: DashboardState, _ width: Int, _ height: Int) -> [String] {
        let canvas = Renderer.render(state, width: width, height: height)
        return (0..<height).map { y in String(String.UnicodeScalarView((0..<width).map { canvas[$0, y].scalar })) }
    }

    @Test(arguments: [(160, 48), (80, 24)])
    func theTapsTable(_ width: Int, _ height: Int) throws {
        try GoldenFrameTests().check("tap-table", TapFixtures.state(), width, height)
    }

    /// Vehicles focused: three churning, most fetches per token first, then a refused token.
    @Test(arguments: [(160, 48), (80, 24)])
    func theTapsVehicles(_ width: Int, _ height: Int) throws {
        var state = TapFixtures.state()
        Fixtures.apply(&state, .key(.tab))
        try GoldenFrameTests().check("tap-vehicles", state, width, height)
    }

    /// After `n` and the ledger's answer: the churning trip's pane over the table, its twelve
    /// fetches, counters and churn status.
    @Test(arguments: [(160, 48), (80, 24)])
    func followingAChurningTrip(_ width: Int, _ height: Int) throws {
        try GoldenFrameTests().check("tap-following-churn", TapFixtures.followingChurner(), width, height)
    }

    /// `/00` applied: the table, still taking the space, titled with what it contains.
    @Test(arguments: [(160, 48), (80, 24)])
    func aFilteredTapTable(_ width: Int, _ height: Int) throws {
        var state = TapFixtures.state()
        for key: Key in [.character("/"), .character("0"), .character("0"), .character("4"), .enter] {
            Fixtures.apply(&state, .key(key))
        }
        Fixtures.apply(&state, .fleetTables([.consumer: TapFixtures.table(.consumer, filter: "004")]))
        try GoldenFrameTests().check("tap-filtered", state, width, height)
    }

    @Test func followingAChurningTripShowsEveryFetchOfItsLastHour() throws {
        let state = TapFixtures.followingChurner()
        #expect(state[.consumer].id == "trip-002")
        let text = Self.lines(state, 160, 48).joined(separator: "\n")
        for fetch in TapFixtures.churnerHistory().fetches { #expect(text.contains("#" + (fetch.fingerprint ?? "?"))) }
        #expect(text.contains("fetches 12  tokens 12  12× per token"))
        #expect(text.contains("● fetches 12× per token: the app's provider is not caching"))
        // At 80x24 the pane has room for its newest fetches (its claims give way, Checks names the ID).
        let small = Self.lines(state, 80, 24)
        #expect(small.contains { $0.contains("── Fetch log") })
        #expect(small.contains { $0.contains("fetch") && $0.contains("#000000ab") })
        // Narrow, the churn status is cut to its ratio and cause; the ID stays whole.
        #expect(
            Self.lines(state, 80, 24).contains {
                $0.contains("trip-002") && $0.contains("● 12× per token: not caching")
            })
    }

    /// A fetch of trip-002 at `offset` seconds after t0, with a token of its own.
    static func fetched(_ offset: TimeInterval) -> Action {
        Fixtures.event(
            .consumer, "trip-002",
            .fetched(
                Fixtures.token(
                    .consumer, id: "trip-002", issued: Fixtures.t0.addingTimeInterval(offset), lifetime: 3600),
                latency: 0.02),
            at: offset)
    }

    /// The counters and the churn status are the hour before each frame, not the hour before
    /// Enter: two fetches later they say 14×, and half an hour on the fetches that left the hour
    /// are gone from them.
    @Test func theFollowedCountersAreReadAtEachFrame() throws {
        var state = TapFixtures.followingChurner()
        #expect(Self.lines(state, 160, 48).joined().contains("fetches 12  tokens 12  12× per token"))
        Fixtures.apply(&state, Self.fetched(3001))
        Fixtures.apply(&state, Self.fetched(3002))
        Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(3010)))
        var text = Self.lines(state, 160, 48).joined(separator: "\n")
        #expect(text.contains("fetches 14  tokens 14  14× per token"))
        #expect(text.contains("● fetches 14× per token: the app's provider is not caching"))
        // At 09:20 the hour runs from 08:21: six of the twelve and both new fetches are in it.
        Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(4800)))
        text = Self.lines(state, 160, 48).joined(separator: "\n")
        #expect(text.contains("fetches 8  tokens 8  8× per token"))
        #expect(text.contains("● fetches 8× per token: the app's provider is not caching"))
    }

    /// The followed pane keeps the ledger's bound: the newest 60 fetches, every fetch counted.
    @Test func theFollowedPaneKeepsTheLastSixtyFetches() throws {
        var state = TapFixtures.followingChurner()
        for i in 0..<70 { Fixtures.apply(&state, Self.fetched(3001 + Double(i) * 10)) }
        let kept = try #require(state[.consumer].tapped?.fetches)
        #expect(kept.count == TappedHistory.fetchLimit)
        #expect(TappedHistory.fetchLimit == 60)
        #expect(kept.first?.time == Fixtures.t0.addingTimeInterval(3001 + 10 * 10))
        #expect(kept.last?.time == Fixtures.t0.addingTimeInterval(3001 + 69 * 10))
        Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(3700)))
        #expect(Self.lines(state, 160, 48).joined().contains("fetches 81  tokens 81"))
    }

    /// Nothing on the tap's screen offers a key that acts on simulated SDKs or a server; `?` says why.
    @Test func theKeyBarOffersOnlyWhatActsOnRealDevices() throws {
        var state = TapFixtures.state()
        let bar = Self.lines(state, 80, 24).suffix(2).joined()
        for absent in ["Refresh", "Trip ", "Vehicle", "Faults", "Pause", "Clear"] { #expect(!bar.contains(absent)) }
        for present in ["n/N Trouble", "m Mark", "z Freeze", "s Snapshot", "T Theme", "? Help", "q Quit"] {
            #expect(bar.contains(present))
        }
        // A refresh key does nothing on real devices: refused, no effect.
        #expect(Fixtures.apply(&state, .key(.character("r"))).isEmpty)
        #expect(Fixtures.apply(&state, .key(.character("f"))).isEmpty && state.overlay == .none)
        Fixtures.apply(&state, .key(.character("?")))
        let help = Self.lines(state, 80, 24).joined()
        #expect(help.contains("Not here: refresh, new trip/vehicle, faults"))
        // In a tap's words: Tab turns to the other table, trouble includes churn.
        #expect(help.contains("Tab       the other table (trips / vehicles) and its followed ID"))
        #expect(help.contains("n N       follow the next / previous ID churning or failing"))
        #expect(!help.contains("focus the other pane"))
    }

    @Test func theTitleCountsTheIDsSeenNotTheTablesCapacity() throws {
        var state = TapFixtures.state()
        #expect(Self.lines(state, 160, 48).contains { $0.contains("Trips (8)") })
        #expect(!Self.lines(state, 160, 48).joined().contains("20000"))
        // A ninth trip asks: the next second's summary says so.
        var summary = try #require(state.fleet[.consumer])
        summary.providers = 9
        Fixtures.apply(&state, .fleet([.consumer: summary]))
        #expect(state[.consumer].fleetSize == 9)
        #expect(Self.lines(state, 80, 24).contains { $0.contains("Trips (9)") })
        // `]` steps through the nine seen, back to the first after the last.
        for _ in 0..<9 { Fixtures.apply(&state, .key(.character("]"))) }
        #expect(state[.consumer].memberIndex == 0)
    }

    @Test func aConfiguredFleetKeepsItsSize() throws {
        var state = FleetFixtures.state()
        var summary = try #require(state.fleet[.consumer])
        summary.providers = 3
        Fixtures.apply(&state, .fleet([.consumer: summary]))
        #expect(state[.consumer].fleetSize == 10_000)
    }

    @Test func narrowTheLifetimeAndExpiryGiveWayAndTheChurnSentenceStays() throws {
        var state = TapFixtures.state()
        Fixtures.apply(&state, .key(.tab))
        let wide = Self.lines(state, 160, 48)
        let narrow = Self.lines(state, 80, 24)
        let header = try #require(wide.first { $0.contains("verdict") })
        for column in ["verdict", "fetches/h", "tokens", "lifetime", "expires in", "last error"] {
            #expect(header.contains(column))
        }
        let narrowHeader = try #require(narrow.first { $0.contains("verdict") })
        for column in ["verdict", "fetches/h", "tokens", "last error"] { #expect(narrowHeader.contains(column)) }
        #expect(!narrowHeader.contains("lifetime") && !narrowHeader.contains("expires in"))
        let churner = try #require(wide.first { $0.contains("vehicle-003") })
        #expect(churner.contains("fetches 25× per token: the app's provider is not caching"))
        #expect(churner.contains("1 h 00 m"))
        // Narrow, the sentence is cut to its ratio and cause, not at the edge.
        #expect(try #require(narrow.first { $0.contains("vehicle-003") }).contains("25× per token: not caching"))
        // The rows under the header: churn first, most fetches per token first.
        let order = wide.compactMap { line in ["vehicle-003", "vehicle-002", "vehicle-006"].first { line.contains($0) }
        }
        #expect(order == ["vehicle-003", "vehicle-002", "vehicle-006"])
    }
}
