import Fleet
import FleetEngineAPI
import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing

@testable import Dashboard
@testable import UICore

/// Whole frames, text and styles, compared with files in Golden/: a change anywhere on the
/// screen shows up as a diff to review. `UPDATE_GOLDEN=1 swift test --filter GoldenFrameTests`
/// writes the files anew; review them with `git diff` before committing.
@Suite(.timeLimit(.minutes(15))) struct GoldenFrameTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    func check(
        _ name: String, _ state: DashboardState, _ width: Int, _ height: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try GoldenFrame.check(
            Renderer.render(state, width: width, height: height), name: name, in: Self.folder,
            sourceLocation: sourceLocation)
    }

    static func failing() -> DashboardState {
        var state = Fixtures.running()
        Fixtures.apply(
            &state,
            Fixtures.event(
                .driver, "vehicle-0001", .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.004), at: 16))
        return state
    }

    /// Each SDK's call with its token: the trip read OK twice; the vehicle's update refused for
    /// a token tokendash's rules passed, so the pane says the two disagree.
    static func fleetEngineCalls() -> DashboardState {
        var state = Fixtures.running()
        func call(_ kind: ProviderKind, _ id: String, _ answer: FleetEngineAnswer, at second: TimeInterval) {
            Fixtures.apply(&state, Fixtures.event(kind, id, .fleetEngineCall(answer), at: second))
        }
        let trip = FleetEngineAnswer(
            method: .getTrip, resource: "providers/tokendash/trips/trip-0001", httpStatus: 200, status: "OK",
            message: "", latency: 0.0042, fingerprint: "1a2b3c4d", rules: .ok)
        call(.consumer, "trip-0001", trip, at: 2)
        call(.consumer, "trip-0001", trip, at: 12)
        let refused = FleetEngineAnswer(
            method: .updateVehicle, resource: "providers/tokendash/vehicles/vehicle-0001", httpStatus: 401,
            status: "UNAUTHENTICATED", message: "JWT signature does not verify: its signing key was deleted",
            latency: 0.0051, fingerprint: "5e6f7a8b", rules: .ok)
        call(.driver, "vehicle-0001", refused, at: 14)
        return state
    }

    /// The driver side runs the customer's own class: its title says so, and its breaches each
    /// take a line of the pane and of the log; the consumer's class did not build.
    static func yourOwnProvider() -> DashboardState {
        var state = Fixtures.running()
        state.sourceLabels = [
            .driver: "your code: SampleAccessTokenProvider.swift", .consumer: "your code: TripProvider.swift",
        ]
        Fixtures.apply(
            &state,
            Fixtures.event(
                .driver, "vehicle-0001",
                .breach(
                    ContractBreach(
                        .dataRace,
                        "data race: SampleAccessTokenProvider.swift:63 writes authToken while SampleAccessTokenProvider.swift:34 reads it (the SDK calls from several threads)",
                        lines: [34, 63])), at: 6))
        Fixtures.apply(
            &state,
            Fixtures.event(
                .driver, "vehicle-0001",
                .breach(
                    ContractBreach(
                        .servedAfterExp,
                        "served after exp: your code handed back a token 0.4 s past its exp, which Fleet Engine refuses; the backend sent expirationTimestamp: 1795894645000, epoch milliseconds (2026-11-28T19:37:25Z); read as seconds it is about 57,000 years away, so a class reading it so keeps its token for good"
                    )), at: 14))
        Fixtures.apply(
            &state,
            Fixtures.event(
                .consumer, "trip-0001",
                .fetchFailed(
                    .other(
                        "/home/me/TripProvider.swift:42:35: error: value of optional type 'URL?' must be unwrapped to a value of type 'URL'"
                    ), latency: 0), at: 15))
        return state
    }

    /// Android factories in both panes: the driver's getToken held the update thread past its
    /// deadline (killed, said with the updates it held back), the consumer's threw.
    static func androidFactories() -> DashboardState {
        var state = Fixtures.running()
        state.sourceLabels = [
            .driver: "your code (JVM, no race check): JsonAuthTokenFactory.java, placeholders filled",
            .consumer: "your code (JVM, no race check): TripAuthTokenFactory.java",
        ]
        Fixtures.apply(
            &state,
            Fixtures.event(
                .driver, "vehicle-0001",
                .breach(
                    ContractBreach(
                        .providerKilled,
                        "provider killed: getToken(context) blocked the Driver SDK's location-update thread for 10 s, holding back 2 location updates; its host was killed; started again at the next call after 1 s"
                    )), at: 12))
        Fixtures.apply(
            &state,
            Fixtures.event(
                .consumer, "trip-0001",
                .fetchFailed(
                    .other(
                        "getToken threw java.lang.RuntimeException: Could not get auth token at TripAuthTokenFactory.java:58, caused by java.net.ConnectException: Connection refused"
                    ), latency: 0.004), at: 15))
        return state
    }

    static func fleet() -> DashboardState {
        var state = Fixtures.state(trips: 10_000, vehicles: 10_000)
        var stats = ProviderCountersFixture.summary(providers: 10_000)
        stats.requestsPerSecond = 133.4
        Fixtures.apply(&state, .fleet([.consumer: stats, .driver: stats]))
        return state
    }

    static func with(_ state: DashboardState, keys: [Key]) -> DashboardState {
        var state = state
        for key in keys { Fixtures.apply(&state, .key(key)) }
        return state
    }

    /// Both panes side by side at 160x48 (claims, checks, counters, logs, timelines, every key in
    /// the footer); stacked at 80x24 with the essentials, the footer keeping ? Help and q Quit.
    @Test(arguments: [(160, 48), (80, 24)])
    func running(_ width: Int, _ height: Int) throws { try check("running", Fixtures.running(), width, height) }

    /// The driver's last error and failed request, in the pane and its fetch log, at both sizes.
    @Test(arguments: [(160, 48), (80, 24)])
    func aFailingDriver(_ width: Int, _ height: Int) throws { try check("failing", Self.failing(), width, height) }

    /// Fleet Engine's answers: a line in each pane, entries in the fetch logs, a lane in the
    /// timelines, and the disagreement with tokendash's rules said in the driver's pane.
    @Test(arguments: [(160, 48), (80, 24)])
    func fleetEngineAnswers(_ width: Int, _ height: Int) throws {
        try check("fleet-engine", Self.fleetEngineCalls(), width, height)
    }

    @Test(arguments: [(160, 48), (80, 24)])
    func yourOwnProvider(_ width: Int, _ height: Int) throws {
        try check("your-code", Self.yourOwnProvider(), width, height)
    }

    @Test(arguments: [(160, 48), (80, 24)])
    func androidFactories(_ width: Int, _ height: Int) throws {
        try check("android-factories", Self.androidFactories(), width, height)
    }

    /// The fleet rows above the focused kind's table, the panes below, the fleet keys in the footer.
    @Test(arguments: [(160, 48), (80, 24)])
    func aFleet(_ width: Int, _ height: Int) throws { try check("fleet", Self.fleet(), width, height) }

    /// A fleet whose `--ramp` has started 12,000 of its 20,000 SDKs: a line under the rows says so.
    @Test(arguments: [(160, 48), (80, 24)])
    func aFleetRampingUp(_ width: Int, _ height: Int) throws {
        var state = Self.fleet()
        var consumers = ProviderCountersFixture.summary(providers: 10_000)
        var drivers = consumers
        consumers.started = 6_001
        drivers.started = 5_999
        Fixtures.apply(&state, .fleet([.consumer: consumers, .driver: drivers]))
        // The backend held the ramp back to 420 of its 1,000 a second.
        Fixtures.apply(
            &state,
            .rampPace(
                Pacer.Status(rate: 420, ceiling: 1000, floor: 10, reason: .slow(p99: 2.1), inFlight: 300, active: true))
        )
        try check("fleet-ramping", state, width, height)
    }

    /// A backend that stopped answering mid-ramp: the window's 16 calls are all out, so the line
    /// says the ramp is held, not merely slow.
    @Test(arguments: [(160, 48), (80, 24)])
    func aRampHeldByAFullWindow(_ width: Int, _ height: Int) throws {
        var state = Self.fleet()
        var consumers = ProviderCountersFixture.summary(providers: 10_000)
        var drivers = consumers
        consumers.started = 9
        drivers.started = 7
        Fixtures.apply(&state, .fleet([.consumer: consumers, .driver: drivers]))
        Fixtures.apply(
            &state,
            .rampPace(
                Pacer.Status(
                    rate: 12, ceiling: 1000, floor: 10, reason: .stalled(waiting: 4.2), inFlight: 16, window: 16,
                    active: true)))
        try check("fleet-ramp-window-full", state, width, height)
    }

    /// The member table with members in every state, trouble first.
    @Test(arguments: [(160, 48), (80, 24)])
    func theFleetTable(_ width: Int, _ height: Int) throws {
        try check("fleet-table", FleetFixtures.state(), width, height)
    }

    /// Filtered to IDs containing "0004" (the aggregate's answer applied), the third row selected.
    @Test(arguments: [(160, 48), (80, 24)])
    func theFleetTableFiltered(_ width: Int, _ height: Int) throws {
        var state = Self.with(
            FleetFixtures.state(),
            keys: [.character("/"), .character("0"), .character("0"), .character("0"), .character("4"), .enter])
        Fixtures.apply(&state, FleetFixtures.tables(filter: "0004"))
        try check("fleet-filtered", Self.with(state, keys: [.down, .down]), width, height)
    }

    @Test func theFilterPrompt() throws {
        try check(
            "fleet-filter-prompt",
            Self.with(FleetFixtures.state(), keys: [.character("/"), .character("0"), .character("4")]), 80, 24)
    }

    /// Every key of a fleet run listed at the minimum size.
    @Test func theFleetHelp() throws {
        try check("fleet-help", Self.with(FleetFixtures.state(), keys: [.character("?")]), 80, 24)
    }

    @Test(arguments: [(160, 48), (80, 24)])
    func theFaultMenu(_ width: Int, _ height: Int) throws {
        try check("faults", Self.with(Fixtures.running(), keys: [.character("f"), .down]), width, height)
    }

    /// The menu of a run against the user's own backends: it says why there is nothing to choose.
    @Test func theFaultMenuWithoutAnEmbeddedServer() throws {
        var state = Fixtures.running()
        state.faultsAvailable = false
        try check("faults-unavailable", Self.with(state, keys: [.character("f")]), 160, 48)
    }

    /// A token with two warnings: the Checks row names the worst and counts the rest, the Clock
    /// row gives the skew and where it would be refused, the log has each warning once and the
    /// token's fingerprint.
    @Test func theVerdictShowsItsWorstFindingAndTheClock() throws {
        var state = Fixtures.state()
        var token = Fixtures.token(
            .consumer, id: "trip-0001",
            findings: [
                RuleResult(.alg, .ok, "RS256"),
                RuleResult(.lifetime, .warn, "60 s, under 300 s"),
                RuleResult(.clock, .warn, "backend clock is 1200 s behind this machine's (Date header)"),
                RuleResult(.signature, .ok, "RS256 verified"),
            ])
        // This machine runs 1200 s ahead of the backend's Date header, and so does the token's iat.
        token.clockSkew = 1200
        Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetched(token, latency: 0.01), at: 0))
        try check("verdict", state, 160, 48)
    }

    @Test(arguments: [(160, 48), (80, 24)])
    func theHelp(_ width: Int, _ height: Int) throws {
        try check("help", Self.with(Fixtures.running(), keys: [.character("?")]), width, height)
    }

    @Test(arguments: [(160, 48), (80, 24)])
    func typingAnID(_ width: Int, _ height: Int) throws {
        try check(
            "input", Self.with(Fixtures.running(), keys: [.character("i"), .character("a"), .character("b")]), width,
            height)
    }

    /// A mark being noted, then the screen frozen with two marks on the timelines and events since.
    @Test(arguments: [(160, 48), (80, 24)])
    func evidence(_ width: Int, _ height: Int) throws {
        var state = Self.history()
        Fixtures.apply(&state, .marked(Mark(number: 1, at: Fixtures.t0.addingTimeInterval(45), note: "refresh ahead")))
        try check("mark-prompt", Self.with(state, keys: [.character("m")] + "outage".map(Key.character)), width, height)
        Fixtures.apply(&state, .marked(Mark(number: 2, at: Fixtures.t0.addingTimeInterval(91))))
        Fixtures.apply(&state, .key(.character("z")))
        Fixtures.apply(&state, Fixtures.event(.driver, "vehicle-0001", .fetchStarted(reason: .forced), at: 116))
        Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(120)))
        try check("frozen", state, width, height)
    }

    @Test func revealedAndPaused() throws {
        try check("revealed-paused", Self.with(Fixtures.running(), keys: [.character("x"), .character("p")]), 160, 48)
    }

    /// Each status the dot can show, with what happens next, at 80x24.
    @Test(arguments: [
        "expired-paused", "refresh-due", "refreshing", "failing", "fetching", "backing-off", "stale-retrying",
    ])
    func statuses(_ name: String) throws {
        var state = Fixtures.running()
        switch name {
        case "expired-paused":
            // Paused, no SDK call comes, and the token's exp passes: no green dot.
            Fixtures.apply(&state, .key(.character("p")))
            Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(70)))
        case "refresh-due":
            Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(35)))
        case "refreshing":
            Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetchStarted(reason: .refreshAhead), at: 31))
            Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(32)))
        case "backing-off":
            state = Fixtures.state()
            Fixtures.apply(
                &state,
                Fixtures.event(
                    .consumer, "trip-0001", .fetchFailed(.httpStatus(code: 503, body: "busy"), latency: 0.01)))
            Fixtures.apply(
                &state,
                Fixtures.event(
                    .consumer, "trip-0001", .backingOff(until: Fixtures.t0.addingTimeInterval(12), attempt: 6)))
            Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(2)))
        case "stale-retrying":
            Fixtures.apply(
                &state,
                Fixtures.event(
                    .consumer, "trip-0001", .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.01), at: 16))
            Fixtures.apply(
                &state,
                Fixtures.event(
                    .consumer, "trip-0001", .backingOff(until: Fixtures.t0.addingTimeInterval(28), attempt: 2), at: 16))
            Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(17)))
        case "failing":
            state = Fixtures.state()
            for i in 0..<3 {
                Fixtures.apply(
                    &state,
                    Fixtures.event(
                        .consumer, "trip-0001",
                        .fetchFailed(.unreachable(url: "http://x", reason: "connection refused"), latency: 0),
                        at: Double(i)))
            }
            Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(name == "failing" ? 6 : 3)))
        default:
            state = Fixtures.state()
            Fixtures.apply(&state, Fixtures.event(.consumer, "trip-0001", .fetchStarted(reason: .noToken)))
        }
        try check("status-\(name)", state, 80, 24)
    }

    /// Two minutes of a pane's life on the timelines: refreshes ahead of expiry, a failed request
    /// and its retry, an ID switch with its new token, at 160x48 and 120x40.
    static func history() -> DashboardState {
        var state = Fixtures.state()
        for kind in [ProviderKind.consumer, .driver] {
            let id = kind == .consumer ? "trip-0001" : "vehicle-0001"
            var t: TimeInterval = 0
            for issued in [0.0, 30, 60] {
                t = issued
                Fixtures.apply(
                    &state,
                    Fixtures.event(kind, id, .fetchStarted(reason: issued == 0 ? .noToken : .refreshAhead), at: t))
                var token = Fixtures.token(kind, id: id, issued: Fixtures.t0.addingTimeInterval(issued))
                token.refreshAt = token.expiresAt.addingTimeInterval(-30)
                Fixtures.apply(
                    &state, Fixtures.event(kind, id, .fetched(token, latency: 0.01 + issued / 1000), at: t + 0.2))
            }
            Fixtures.apply(&state, Fixtures.event(kind, id, .fetchStarted(reason: .refreshAhead), at: 90))
            Fixtures.apply(
                &state,
                Fixtures.event(kind, id, .fetchFailed(.httpStatus(code: 500, body: "boom"), latency: 0.2), at: 90.2))
            if kind == .consumer {
                Fixtures.apply(
                    &state, Fixtures.event(kind, "trip-0002", .idChanged(from: id, to: "trip-0002"), at: 100))
                Fixtures.apply(&state, Fixtures.event(kind, "trip-0002", .fetchStarted(reason: .idChanged), at: 100))
                var token = Fixtures.token(kind, id: "trip-0002", issued: Fixtures.t0.addingTimeInterval(100))
                token.refreshAt = token.expiresAt.addingTimeInterval(-30)
                Fixtures.apply(&state, Fixtures.event(kind, "trip-0002", .fetched(token, latency: 0.05), at: 100.3))
            }
        }
        Fixtures.apply(&state, .key(.character("+")))
        Fixtures.apply(&state, .tick(Fixtures.t0.addingTimeInterval(115)))
        return state
    }

    @Test(arguments: [(160, 48), (120, 40), (80, 24)])
    func timelines(_ width: Int, _ height: Int) throws { try check("timeline", Self.history(), width, height) }

    /// Below 80x24 the focused pane alone, down to 60x16; Tab shows the other.
    @Test(arguments: [(79, 24, false), (60, 16, false), (70, 20, true)])
    func compact(_ width: Int, _ height: Int, _ tab: Bool) throws {
        try check(
            tab ? "compact-tab" : "compact", Self.with(Fixtures.running(), keys: tab ? [.tab] : []), width, height)
    }

    /// Too narrow, too short, or both: both sizes, and how to leave.
    @Test(arguments: [(40, 10), (59, 24), (100, 10)])
    func tooSmall(_ width: Int, _ height: Int) throws { try check("too-small", Fixtures.running(), width, height) }
}
