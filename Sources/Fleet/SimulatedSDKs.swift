import FleetEngineAPI
import FleetEngineClient
import Foundation
import Pacing
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TokenJudging
import TokenProviders

/// A group of simulated mobile SDKs of one kind, each with its own provider and current ID,
/// asking for tokens at their location-update cadence as the real Consumer and Driver SDKs do.
public actor SimulatedSDKs<Context: AuthorizationContext> {
    /// One per SDK, of the logic chosen at init (tokendash's unless a sample's was asked for).
    public nonisolated let providers: [ChosenTokenProvider<Context>]
    private var ids: [String]
    // Read by the update loop on every tick, flipped by the UI; a lock keeps that off the actor's queue.
    private let pausedFlag = Mutex(false)
    /// The SDKs' calls to Fleet Engine with their tokens; nil when they make none.
    public nonisolated let fleetEngine: FleetEngineCaller?
    /// How long a token call may take: what the ramp's pace judges latency against.
    private let fetchTimeout: TimeInterval

    /// One provider per ID, all sharing `transport` and `events`, each running `logic`. With a
    /// `fleetEngine` target, each SDK calls Fleet Engine after its token calls, as its real SDK does.
    public init(
        ids: [String], endpoint: TokenEndpoint, transport: any TokenTransport, events: EventBroadcaster,
        refreshMargin: TimeInterval, clock: any ProviderClock = SystemClock(),
        verifier: (any SignatureVerifier)? = nil, fleetEngine: FleetEngineTarget? = nil,
        fleetEngineBudget: CallBudget? = nil, logic: ProviderLogic = .tokendash
    ) {
        precondition(!ids.isEmpty, "a group needs at least one SDK")
        self.ids = ids
        self.fetchTimeout = endpoint.timeout
        self.fleetEngine = fleetEngine.map {
            FleetEngineCaller(
                target: $0, kind: Context.kind, count: ids.count, transport: transport, events: events, clock: clock,
                budget: fleetEngineBudget, verdict: TokenRules.verdict)
        }
        self.providers = ids.map { _ in
            ChosenTokenProvider<Context>(
                logic, endpoint: endpoint, transport: transport, refreshMargin: refreshMargin,
                clock: clock, events: events, verifier: verifier)
        }
    }

    /// One SDK per provider given, each with its ID: a provider made elsewhere, such as the
    /// customer's own class in its host.
    public init(
        ids: [String], providers: [ChosenTokenProvider<Context>], transport: any TokenTransport,
        events: EventBroadcaster,
        clock: any ProviderClock = SystemClock(), fleetEngine: FleetEngineTarget? = nil,
        fleetEngineBudget: CallBudget? = nil, fetchTimeout: TimeInterval = 10
    ) {
        precondition(!ids.isEmpty && ids.count == providers.count, "one provider per SDK")
        self.ids = ids
        self.fetchTimeout = fetchTimeout
        self.fleetEngine = fleetEngine.map {
            FleetEngineCaller(
                target: $0, kind: Context.kind, count: ids.count, transport: transport, events: events, clock: clock,
                budget: fleetEngineBudget, verdict: TokenRules.verdict)
        }
        self.providers = providers
    }

    public var count: Int { ids.count }
    public func id(at index: Int) -> String { ids[index] }

    public nonisolated var isPaused: Bool { pausedFlag.withLock { $0 } }
    public nonisolated func setPaused(_ paused: Bool) { pausedFlag.withLock { $0 = paused } }

    /// Switches SDK `index` to `id` and asks for its token at once, as an SDK does when its trip or vehicle changes.
    public func switchID(at index: Int, to id: String) async {
        guard ids.indices.contains(index) else { return }
        ids[index] = id
        fleetEngine?.callSoon(index: index)
        await Self.tokenCall(index: index, provider: providers[index], id: id, fleetEngine: fleetEngine)
    }

    /// One token call, as the SDK makes it, then the SDK's Fleet Engine call if one is due; its failure, if it failed.
    @discardableResult
    private static func tokenCall(
        index: Int, provider: ChosenTokenProvider<Context>, id: String,
        fleetEngine: FleetEngineCaller?
    ) async -> FleetAuthError? {
        await reported(index: index, provider: provider, id: id, fleetEngine: fleetEngine) {
            try await provider.fetchToken(for: Context(id: id))
        }
    }

    /// `obtain`'s token, then the Fleet Engine call with it or, when the provider refused the
    /// token it got, with that one (the SDK is handed none; Fleet Engine says whether it agrees).
    /// Returns `obtain`'s failure: the events say it to the user, the ramp reads it for load.
    /// `forced`: the Fleet Engine call goes whatever the SDK's schedule (a refresh the user asked for).
    @discardableResult
    static func reported(
        index: Int, provider: ChosenTokenProvider<Context>, id: String, fleetEngine: FleetEngineCaller?,
        forced: Bool = false, _ obtain: () async throws -> String
    ) async -> FleetAuthError? {
        do {
            let token = try await obtain()
            fleetEngine?.startAfterTokenCall(index: index, id: id, token: token, forced: forced)
            return nil
        } catch {
            let failure = error as? FleetAuthError ?? .other("\(error)")
            // Only the call whose answer was refused: a backoff or an outage after it hands the
            // SDK nothing new to ask Fleet Engine about.
            guard let fleetEngine, failure.isTokenRejection, let refused = await provider.refusedToken else {
                return failure
            }
            fleetEngine.startAfterTokenCall(
                index: index, id: id, token: refused, refusedByProvider: true, forced: forced)
            return failure
        }
    }

    /// The SDKs started whose provider holds no token valid at `now`, with the last failure if
    /// there was one: what `watch` reports (and exits 1 for) when a run ends. An SDK a ramp has not
    /// started yet never asked, so it is not counted.
    public func withoutValidToken(at now: Date) async -> [(kind: ProviderKind, id: String, lastError: String?)] {
        var missing: [(kind: ProviderKind, id: String, lastError: String?)] = []
        for (index, provider) in providers.enumerated() where index < started {
            let (_, token) = await provider.snapshot
            if let token, token.expiresAt > now { continue }
            // A call still out with no failure before it: the backend has not answered it yet,
            // which is the finding when a backend accepts connections and never replies.
            let waiting = await provider.isFetching ? "its call had no answer from the backend yet" : nil
            missing.append((Context.kind, ids[index], await provider.lastFailure?.description ?? waiting))
        }
        return missing
    }

    /// One location update from SDKs `range`: each asks `callers` times concurrently.
    /// Failures are not thrown: they are in the event stream, where the user sees them.
    public func update(_ range: Range<Int>? = nil, callers: Int = 1) async {
        let range = range ?? ids.indices
        let targets = range.map { ($0, providers[$0], ids[$0]) }
        let fleetEngine = self.fleetEngine
        await withTaskGroup(of: Void.self) { group in
            for (index, provider, id) in targets {
                for _ in 0..<max(1, callers) {
                    group.addTask {
                        await Self.tokenCall(index: index, provider: provider, id: id, fleetEngine: fleetEngine)
                    }
                }
            }
        }
    }

    /// Updates every `interval` seconds until cancelled, skipping ticks while paused. A large group
    /// is spread over the interval in slices, as real devices are not synchronised. With a `ramp`
    /// that spreads, the SDKs make their first calls in order at the ramp's rate at most, slower
    /// when the backend's answers say so (`pacer`, shared with the other groups that call the same
    /// backend; without one the group paces alone), and the updates cover only those started;
    /// without a ramp every SDK starts at once (`started` says how many have).
    public func run(
        interval: TimeInterval, callers: Int = 1, ramp: FleetRamp = FleetRamp(duration: 0),
        clock: any SleepingClock = SystemClock(), pacer: Pacer? = nil
    ) async {
        guard ramp.spreads else {
            started = ids.count
            await updateLoop(interval: interval, callers: callers, clock: clock)
            return
        }
        started = 0
        let pacer = pacer ?? Pacer(RateControl(ceiling: ramp.rate(count: ids.count), timeout: fetchTimeout))
        await withDiscardingTaskGroup { group in
            group.addTask { await self.rampUp(ramp, pacer: pacer, callers: callers, clock: clock) }
            group.addTask { await self.updateLoop(interval: interval, callers: callers, clock: clock, afterRamp: true) }
        }
    }

    /// How many SDKs have made their first call (or are making it): all of them once a ramp is over.
    public private(set) var started = 0

    /// First calls in SDK order, as fast as the ramp's rate and the pacer's share of it allow,
    /// within the pacer's window of calls in flight; each batch on its own child task so a slow
    /// backend does not hold the wake-ups back. Time spent paused earns no calls, so a pause does
    /// not end in a burst; nor does time the window kept shut.
    private func rampUp(_ ramp: FleetRamp, pacer: Pacer, callers: Int, clock: any SleepingClock) async {
        let count = ids.count
        // This group's part of the pacer's rate: each side ramps over the same duration.
        let ceiling = ramp.rate(count: count)
        // The window counts what reaches the backend, not the callers asking: under tokendash's
        // single-flight an SDK's first update is one request however many callers ask; a
        // provider that does not share a fetch (the samples, the customer's class) may send one
        // per caller.
        let requests = providers.first?.sharesFetches == true ? 1 : max(1, callers)
        pacer.laneStarted()
        defer { pacer.laneEnded() }
        // The first SDK at once.
        var credit = 1.0
        var last = clock.now()
        await withDiscardingTaskGroup { group in
            while started < count, !Task.isCancelled {
                let now = clock.now()
                if isPaused {
                    // Time paused earns nothing: the credit counts from the last look that found it paused.
                    last = now
                    do { try await clock.sleep(until: now.addingTimeInterval(0.1)) } catch { return }
                    continue
                }
                let pace = pacer.status
                let rate = ceiling * pace.rate / pace.ceiling
                // An SDK's update never costs more than the whole window, so one larger than the
                // window still gets in, alone, once the window has emptied; otherwise it would
                // wait for ever, and the run would end with nothing asked.
                let cost = min(requests, max(1, pace.window))
                credit += max(0, now.timeIntervalSince(last)) * rate
                last = now
                // A hair over: whole seconds of a whole rate land on whole calls despite the
                // rounding of dates 0.1 µs apart.
                let due = min(count - started, Int((credit + 1e-6).rounded(.down)))
                let allowed = min(due, pacer.room(now: now) / cost)
                if allowed > 0 {
                    let range = started..<(started + allowed)
                    started += allowed
                    credit -= Double(allowed)
                    let tickets = (0..<(allowed * cost)).map { _ in pacer.begin(now: now) }
                    group.addTask {
                        await self.firstCalls(range, callers: callers, tickets: tickets, pacer: pacer, clock: clock)
                    }
                }
                // Calls the window held back are not owed later: the backend is what held them.
                if allowed < due { credit = min(credit, 1) }
                guard started < count else { return }
                // The next SDK's turn at this rate, looked at again within a second (the rate may
                // rise), and at most 100 wake-ups a second: 1,000 SDKs a second start in tens.
                let wait = credit >= 1 ? 0.01 : min(1, (1 - credit) / max(rate, 0.001))
                do { try await clock.sleep(until: now.addingTimeInterval(max(0.01, wait))) } catch { return }
            }
        }
    }

    /// SDKs `range`'s first token calls, `callers` each, and `tickets` the pacer's for them in
    /// order, as many per SDK as its update costs the window: each of an SDK's first calls up to
    /// that count tells the pacer its answer's time and whether it said the backend is overloaded.
    private func firstCalls(
        _ range: Range<Int>, callers: Int, tickets: [Pacer.Ticket], pacer: Pacer, clock: any ProviderClock
    ) async {
        let targets = range.map { ($0, providers[$0], ids[$0]) }
        let perSDK = tickets.count / max(1, range.count)
        let fleetEngine = self.fleetEngine
        await withTaskGroup(of: Void.self) { group in
            for (n, (index, provider, id)) in targets.enumerated() {
                for call in 0..<max(1, callers) {
                    let ticket = call < perSDK ? tickets[n * perSDK + call] : nil
                    group.addTask {
                        let failure = await Self.tokenCall(
                            index: index, provider: provider, id: id, fleetEngine: fleetEngine)
                        if let ticket { pacer.end(ticket, now: clock.now(), overloaded: failure?.isOverload == true) }
                    }
                }
            }
        }
    }

    /// The location updates of the SDKs started so far, `slices` of them per `interval`.
    /// `afterRamp`: the ramp makes the first calls, so the loop's first pass waits a slice; at
    /// the start both would ask at once, two requests from one SDK under a sample's logic.
    private func updateLoop(interval: TimeInterval, callers: Int, clock: any SleepingClock, afterRamp: Bool = false)
        async
    {
        // Slices of at least 100 SDKs, at most 20 a second: a large fleet's updates come as an
        // even stream, not as bursts of 10,000 calls that queue the ramp's mints behind them.
        let slices = max(1, min(ids.count / 100, Int(interval * 20)))
        let size = (ids.count + slices - 1) / slices
        if afterRamp {
            do { try await clock.sleep(until: clock.now().addingTimeInterval(interval / Double(slices))) } catch {
                return
            }
        }
        // Once every SDK has started and been updated once, the cold start's garbage is freed:
        // its pages go back to the system, once.
        var trimmed = false
        while !Task.isCancelled {
            let allStarted = started == ids.count
            for slice in 0..<slices {
                let start = clock.now()
                if !isPaused {
                    let lower = slice * size
                    let upper = min(started, lower + size)
                    if lower < upper { await update(lower..<upper, callers: callers) }
                }
                do { try await clock.sleep(until: start.addingTimeInterval(interval / Double(slices))) } catch {
                    return
                }
                if Task.isCancelled { return }
            }
            if allStarted, !trimmed, ids.count > 1 {
                FreedMemory.release()
                trimmed = true
            }
        }
    }
}
