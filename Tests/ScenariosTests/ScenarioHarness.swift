import BoundedYAML
import Fleet
import FleetAuth
import Foundation
import HTTPTransport
import ScenarioTargets
import Scenarios
import Synchronization
import TestSupport
import TokenServer

/// One RSA key for the whole run: generating one per server would dominate test time.
enum SharedKey {
    static let key: SigningKey = {
        do { return try SigningKey.generate() } catch { fatalError("cannot generate a test key: \(error)") }
    }()
}

/// The scenarios' test clock, shared by the server, the providers and the runner. While a
/// request is in flight it runs at wall speed in small steps (a latency fault takes the time it
/// takes, and a slow answer can be overtaken by the next step); otherwise a sleep jumps a second
/// at a time, each second one location update of every running SDK, as the dashboard's loop does.
final class DrivenClock: SleepingClock {
    let manual: ManualClock
    let consumers: SimulatedSDKs<TripAuthorizationContext>
    let drivers: SimulatedSDKs<VehicleAuthorizationContext>

    init(
        manual: ManualClock, consumers: SimulatedSDKs<TripAuthorizationContext>,
        drivers: SimulatedSDKs<VehicleAuthorizationContext>
    ) {
        self.manual = manual
        self.consumers = consumers
        self.drivers = drivers
    }

    func now() -> Date { manual.now() }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    func sleep(until deadline: Date) async throws {
        var left = deadline.timeIntervalSince(manual.now())
        while left > 0 {
            try Task.checkCancellation()
            if await inFlight() {
                // Wall time passes while the backend answers, and the providers see it pass: as
                // much as really passed, not 10 ms a turn. On a loaded machine a turn takes far
                // longer, and a scenario's second then outlasted the server's 6-second latency
                // (sample-race's switch came after the old vehicle's answer, once in a full run).
                let start = ContinuousClock.now
                try await Task.sleep(for: .milliseconds(10))
                let elapsed = min(left, Self.seconds(ContinuousClock.now - start))
                manual.advance(by: elapsed)
                left -= elapsed
                continue
            }
            let step = min(1, left)
            manual.advance(by: step)
            left -= step
            // Not awaited: an update that starts a slow fetch must not hold the clock.
            let (consumers, drivers) = (self.consumers, self.drivers)
            if !consumers.isPaused { Task { await consumers.update() } }
            if !drivers.isPaused { Task { await drivers.update() } }
            // Long enough for a loopback answer without a fault; a slow one is caught above next turn.
            try await Task.sleep(for: .milliseconds(15))
        }
    }

    private func inFlight() async -> Bool {
        for provider in consumers.providers where await provider.isFetching { return true }
        for provider in drivers.providers where await provider.isFetching { return true }
        return false
    }
}

/// Every event published, in order.
final class EventLog: Sendable {
    // Guards the events seen; appended by the reading task, read by the test.
    private let seen = Mutex<[ProviderEvent]>([])
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ broadcaster: EventBroadcaster) {
        let stream = broadcaster.subscribe()
        let reader = Task { [weak self] in for await event in stream { self?.seen.withLock { $0.append(event) } } }
        task.withLock { $0 = reader }
    }

    var all: [ProviderEvent] { seen.withLock { $0 } }
    func stop() { task.withLock { $0?.cancel() } }
}

/// A built-in scenario run to its end against a real embedded server, real providers over
/// HTTP on loopback, and the driven clock.
struct ScenarioRun {
    let events: [ProviderEvent]
    let reports: [ScenarioProgress]
    let final: ScenarioProgress
    let server: EmbeddedTokenServer

    static func run(_ name: String, lifetime: TimeInterval = 60, logic: ProviderLogic = .tokendash) async throws
        -> ScenarioRun
    {
        guard let scenario = ScenarioCatalog.builtins.first(where: { $0.name == name }) else {
            throw FileProblem(file: name, line: nil, "no such built-in")
        }
        let manual = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let server = try await EmbeddedTokenServer(
            configuration: TokenServerConfiguration(lifetime: lifetime), key: SharedKey.key, clock: manual)
        let base = try await server.start().absoluteString
        let broadcaster = EventBroadcaster()
        // The phones' clock, which skewed-phone puts wrong, over the test's manual one.
        let phones = DeviceClock(manual)
        // As the dashboard runs them: each SDK calls the embedded Fleet Engine with its token.
        guard let baseURL = URL(string: base) else { throw FleetAuthError.invalidURL(base) }
        let fleetEngine = FleetEngineTarget(base: baseURL, provider: server.fleetEngineProject, writes: true)
        let consumers = SimulatedSDKs<TripAuthorizationContext>(
            ids: ["trip-0001"], endpoint: .sampleBackend(.consumer, base: base), transport: sharedTransport,
            events: broadcaster, refreshMargin: 300, clock: phones, fleetEngine: fleetEngine, logic: logic)
        let drivers = SimulatedSDKs<VehicleAuthorizationContext>(
            ids: ["vehicle-0001"], endpoint: .sampleBackend(.driver, base: base), transport: sharedTransport,
            events: broadcaster, refreshMargin: 300, clock: phones, fleetEngine: fleetEngine, logic: logic)
        let log = EventLog(broadcaster)
        let clock = DrivenClock(manual: manual, consumers: consumers, drivers: drivers)
        // The SDKs have their first tokens before the scenario begins, as on a dashboard already running.
        await consumers.update()
        await drivers.update()
        let reports = Reports()
        let runner = ScenarioRunner(
            scenario: scenario,
            target: LiveScenarioTarget(server: server, consumers: consumers, drivers: drivers, deviceClock: phones),
            events: { broadcaster.subscribe() }, clock: clock, tick: 1,
            progress: { reports.append($0) }
        )
        await runner.start()
        await runner.waitUntilDone()
        let final = await runner.progress
        await runner.stop()
        // Let the last answers in flight arrive before the log is read.
        try await Task.sleep(for: .milliseconds(50))
        log.stop()
        await server.stop()
        return ScenarioRun(events: log.all, reports: reports.all, final: final, server: server)
    }

    /// The events of `provider` from the first matching `from` on.
    func events(_ provider: ProviderKind) -> [ProviderEvent] { events.filter { $0.provider == provider } }

    /// Notes of `until:` steps that timed out: a scenario that did not show what it says has some.
    var timeouts: [String] { reports.compactMap(\.note).filter { $0.hasPrefix("gave up") } }
}
