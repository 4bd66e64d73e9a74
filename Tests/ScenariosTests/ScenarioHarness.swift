import BoundedYAML
import Fleet
import FleetEngineAPI
import Foundation
import HTTPTransport
import ProviderEvents
import ProviderVocabulary
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

/// The scenarios' test clock, shared by the server, the providers and the runner. A sleep jumps
/// a second at a time, each second one location update of every running SDK, as the dashboard's
/// loop does, and the second ends when its updates have their answers. Only while the server holds
/// an answer back on purpose (its latency fault, a wall-time delay) does the clock follow the wall,
/// in small steps, so a late answer can be overtaken by the next step as on a real phone.
final class DrivenClock: SleepingClock {
    let manual: ManualClock
    let consumers: SimulatedSDKs<TripAuthorizationContext>
    let drivers: SimulatedSDKs<VehicleAuthorizationContext>
    let server: EmbeddedTokenServer
    // Guards the updates started and not yet done: started by a turn, ended by their tasks.
    private let pending = Mutex<[Int: Task<Void, Never>]>([:])
    private let nextUpdate = Atomic<Int>(0)

    init(
        manual: ManualClock, consumers: SimulatedSDKs<TripAuthorizationContext>,
        drivers: SimulatedSDKs<VehicleAuthorizationContext>, server: EmbeddedTokenServer
    ) {
        self.manual = manual
        self.consumers = consumers
        self.drivers = drivers
        self.server = server
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
                // The wall's time passes while the server holds an answer back, and the providers
                // see it pass: as much as really passed. This is the clock's own tick, not a wait
                // for something to happen.
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
            let delayed = await server.faults().values.contains { $0.fault == .latency }
            if !consumers.isPaused { start { await self.consumers.update() } }
            if !drivers.isPaused { start { await self.drivers.update() } }
            if delayed {
                // An update held by the latency fault must not hold the clock: the turn ends once
                // each update is done or waiting on the server, and the wall's time runs above.
                let waited = await eventually {
                    if self.updatesDone && self.fleetEngineAnswered { return true }
                    return await self.inFlight()
                }
                if !waited { throw CancellationError() }
            } else {
                try await quiesce()
            }
        }
    }

    /// Starts one update, kept until it is done so the run's end can wait for it.
    private func start(_ update: @escaping @Sendable () async -> Void) {
        let key = nextUpdate.add(1, ordering: .relaxed).newValue
        pending.withLock { pending in
            pending[key] = Task {
                await update()
                _ = self.pending.withLock { $0.removeValue(forKey: key) }
            }
        }
    }

    private var updatesDone: Bool { pending.withLock { $0.isEmpty } }

    /// Waits for every update started to be done (the suite's time limit cancels a lost one).
    func settled() async throws {
        for task in pending.withLock({ Array($0.values) }) { await task.cancellingValue }
        try Task.checkCancellation()
    }

    /// Waits for the updates started and the Fleet Engine calls they started (each SDK calls it
    /// after a token call, not awaited): a second's events, and at the end the run's last ones.
    func quiesce() async throws {
        try await settled()
        if !(await eventually { self.fleetEngineAnswered }) { throw CancellationError() }
    }

    private var fleetEngineAnswered: Bool {
        (consumers.fleetEngine?.callsInFlight ?? 0) + (drivers.fleetEngine?.callsInFlight ?? 0) == 0
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

    /// Waits until the reader has taken every event, once the broadcaster has finished its streams.
    func drained() async {
        await task.withLock { $0 }?.cancellingValue
    }
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
        let clock = DrivenClock(manual: manual, consumers: consumers, drivers: drivers, server: server)
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
        // The last answers in flight, then every event published, before the log is read.
        try await clock.quiesce()
        broadcaster.finish()
        await log.drained()
        await server.stop()
        return ScenarioRun(events: log.all, reports: reports.all, final: final, server: server)
    }

    /// The events of `provider` from the first matching `from` on.
    func events(_ provider: ProviderKind) -> [ProviderEvent] { events.filter { $0.provider == provider } }

    /// Notes of `until:` steps that timed out: a scenario that did not show what it says has some.
    var timeouts: [String] { reports.compactMap(\.note).filter { $0.hasPrefix("gave up") } }
}
