import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing
import TokenProviders
import TokenReading

// Tests of the sample ports (`SwiftSampleTokenProvider`, `ObjCSampleTokenProvider`) against
// tokendash's core, through `ChosenTokenProvider` as the simulated SDKs drive them. Timing is
// the test's: requests park in `ParkingBackend` until released, the clock is a `ManualClock`,
// and every wait is for a fact (a request arrived, a call settled), ended by the suite's time
// limit so a broken port fails instead of hanging.

/// The test's number for the call a request belongs to, carried into the transport by the task
/// (tokendash's fetch task inherits it too).
enum CallTag {
    @TaskLocal static var number: Int?
}

/// Facts that become true once and stay true ("arrived 3", "call 7 settled"), and waiters for them.
final class Facts: Sendable {
    private struct State {
        var known: Set<String> = []
        var waiters: [String: [UUID: CheckedContinuation<Bool, Never>]] = [:]
    }

    // Guards the facts recorded and who waits for which; recorded by the backend and the caller tasks.
    private let state = Mutex(State())

    func record(_ fact: String) {
        let waiting = state.withLock { s -> [CheckedContinuation<Bool, Never>] in
            s.known.insert(fact)
            return Array((s.waiters.removeValue(forKey: fact) ?? [:]).values)
        }
        for waiter in waiting { waiter.resume(returning: true) }
    }

    func holds(_ fact: String) -> Bool { state.withLock { $0.known.contains(fact) } }

    /// Waits for `fact`; false when the wait is cancelled first (the suite's time limit), so that
    /// a port that never gets there fails the test where it was awaited.
    func wait(for fact: String) async -> Bool {
        if holds(fact) { return true }
        return await waitCancellably(for: fact)
    }

    private func waitCancellably(for fact: String) async -> Bool {
        let key = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { s -> Bool? in
                    if s.known.contains(fact) { return true }
                    if Task.isCancelled { return false }
                    s.waiters[fact, default: [:]][key] = c
                    return nil
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters[fact]?.removeValue(forKey: key) }
            waiter?.resume(returning: false)
        }
    }
}

/// A backend that parks every request until the test releases it, then answers with a token
/// minted for the requested ID when the request arrived (`iat`), living `lifetime` seconds, its
/// signature numbered by arrival so each answer's token is its own.
final class ParkingBackend: TokenTransport {
    struct Parked: Sendable {
        let number: Int
        let id: String
        let call: Int?
        let mintedAt: Int
    }

    typealias Answer = @Sendable (_ jwt: String, _ exp: Int) -> TransportResponse

    private struct State {
        var arrived = 0
        var parked: [Int: (Parked, CheckedContinuation<TransportResponse, Never>)] = [:]
    }

    let kind: ProviderKind
    let clock: ManualClock
    let lifetime: Int
    let facts: Facts
    private let answer: Answer
    // Guards the arrivals and the parked requests; parked by callers' tasks, released by the test.
    private let state = Mutex(State())

    init(
        kind: ProviderKind = .consumer, clock: ManualClock, lifetime: Int = 3600, facts: Facts = Facts(),
        answer: @escaping Answer = { jwt, exp in TestJWT.response(jwt, expiresAtSeconds: exp) }
    ) {
        self.kind = kind
        self.clock = clock
        self.lifetime = lifetime
        self.facts = facts
        self.answer = answer
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let id = requestedID(request)
        let call = CallTag.number
        let minted = Int(clock.now().timeIntervalSince1970)
        return await withCheckedContinuation { c in
            let number = state.withLock { s -> Int in
                s.arrived += 1
                s.parked[s.arrived] = (Parked(number: s.arrived, id: id, call: call, mintedAt: minted), c)
                return s.arrived
            }
            facts.record("arrived \(number)")
            if let call { facts.record("call \(call) settled") }
        }
    }

    var arrivals: Int { state.withLock { $0.arrived } }
    /// The requests waiting, in the order they arrived.
    var parked: [Parked] { state.withLock { $0.parked.values.map(\.0).sorted { $0.number < $1.number } } }

    /// Answers request `number`; returns the token it carries.
    @discardableResult
    func release(_ number: Int) -> String? {
        guard let (request, continuation) = state.withLock({ $0.parked.removeValue(forKey: number) }) else {
            return nil
        }
        let exp = request.mintedAt + lifetime
        let jwt = TestJWT.make(
            kind: kind, id: request.id, iat: request.mintedAt, exp: exp, signature: "sig\(request.number)")
        continuation.resume(returning: answer(jwt, exp))
        return jwt
    }

    func releaseAll() { for request in parked { release(request.number) } }
}

/// The ID a token's `authorization` claim names for `kind`.
func owner(of token: String, kind: ProviderKind = .consumer) -> String? {
    (try? JWTInspector.decode(token))?.claims["authorization"]?[kind.claimName]?.stringValue
}

/// Google's samples written down as plainly as the seeds have them, with no events, locks or
/// transport: what each port must do, call by call and answer by answer.
enum SampleModel {
    enum Outcome: Equatable {
        case hit(String)
        case request
    }

    /// The Swift sample (003:33-101): one `authToken` tagged with the ID its call captured.
    struct Swift {
        var authToken: (token: String, expiration: Double, id: String)?

        func call(_ id: String, now: Double) -> Outcome {
            if let t = authToken, t.expiration > now, t.id == id { return .hit(t.token) }
            return .request
        }

        mutating func answer(_ token: String, expiration: Double, id: String) { authToken = (token, expiration, id) }
    }

    /// The Objective-C sample (003:103-202): `_cachedVehicleToken`, `_lastKnownVehicleID`, `_tokenExpiration`.
    struct ObjC {
        var cached: String?
        var lastKnownID: String?
        var tokenExpiration = 0.0

        mutating func call(_ id: String, now: Double) -> Outcome {
            if lastKnownID != id {
                tokenExpiration = 0
                cached = nil
            }
            lastKnownID = id
            if now > tokenExpiration { cached = nil }
            if let cached { return .hit(cached) }
            return .request
        }

        mutating func answer(_ token: String, seconds: Double, answeredAt: Double) {
            tokenExpiration = answeredAt + seconds
            cached = token
        }
    }
}

// 10 minutes: the three 1,000-switch runs take 90 s with two other builds on the machine, 180 s and more with three suites at once.
@Suite(.timeLimit(.minutes(15))) struct SampleProviderTests {
    static let ids = ["trip-A", "trip-B", "trip-C", "trip-D"]

    static func provider(
        _ logic: ProviderLogic, _ backend: ParkingBackend, events: EventBroadcaster = EventBroadcaster()
    )
        -> ChosenTokenProvider<TripAuthorizationContext>
    {
        ChosenTokenProvider(
            logic, endpoint: consumerEndpoint(), transport: backend, refreshMargin: 300,
            clock: backend.clock, events: events)
    }

    /// Starts call `number` for `id` on its own task, as an SDK's location update does. The task
    /// records "call N returned" and then "call N settled" (a parked request records "settled" first).
    static func startCall(
        _ number: Int, id: String, on provider: ChosenTokenProvider<TripAuthorizationContext>,
        facts: Facts, executor: ThreadExecutor? = nil
    ) -> Task<String?, Never> {
        Task(executorPreference: executor) {
            await CallTag.$number.withValue(number) {
                let token = try? await provider.fetchToken(for: trip(id))
                facts.record("call \(number) returned")
                facts.record("call \(number) settled")
                return token
            }
        }
    }

    // MARK: - Property: 1,000 ID switches, answers late and in random order

    struct SwitchRun {
        var switches = 0
        var calls = 0
        var requests = 0
        /// Calls served a token whose `authorization` claim names another ID than the one asked for.
        var staleServes = 0
        /// Swift sample: answers for an ID the SDK had left that replaced the current ID's valid token.
        var lateReplacements = 0
        var modelMismatches: [String] = []
        var problems: [String] = []
    }

    /// One SDK switching among four trips 1,000 times, asking at each switch and at random between,
    /// its requests answered at random later moments in random order. Every call and answer is
    /// checked against the sample's model (for the ports); every token served is checked for its ID.
    static func switchRun(_ logic: ProviderLogic, seed: UInt64, switches: Int = 1000) async -> SwitchRun {
        // A thousand switches' awaits on a thread of their own, not behind every suite's jobs on the pool.
        await onOwnThread("switches \(logic) \(seed)") { executor in
            await switchRun(logic, seed: seed, switches: switches, executor: executor)
        }
    }

    static func switchRun(_ logic: ProviderLogic, seed: UInt64, switches: Int, executor: ThreadExecutor) async
        -> SwitchRun
    {
        var rng = SeededGenerator(seed: seed)
        let clock = ManualClock()
        let facts = Facts()
        let backend = ParkingBackend(clock: clock, facts: facts)
        let provider = provider(logic, backend)
        var swiftModel = SampleModel.Swift()
        var objcModel = SampleModel.ObjC()
        var run = SwitchRun()
        var tasks: [Int: Task<String?, Never>] = [:]
        var asked: [Int: String] = [:]
        var current = ids[0]
        let now = clock.now().timeIntervalSince1970

        func call() async {
            run.calls += 1
            let number = run.calls
            asked[number] = current
            let expected: SampleModel.Outcome? =
                switch logic {
                case .swiftSample: swiftModel.call(current, now: now)
                case .objcSample: objcModel.call(current, now: now)
                case .tokendash: nil
                }
            // Calls still open now: one that settles meanwhile (superseded by a switch) leaves the
            // waiting callers as this one joins them, and the count alone would not move.
            let open = (1..<number).filter { !facts.holds("call \($0) settled") }
            let waitingBefore = await provider.caching?.waitingCallers ?? 0
            tasks[number] = startCall(number, id: current, on: provider, facts: facts, executor: executor)
            if logic == .tokendash {
                // A call that joins the fetch in flight neither parks a request nor returns: it waits.
                let joined = await eventually {
                    if facts.holds("call \(number) settled") { return true }
                    if backend.parked.contains(where: { $0.call == number }) { return true }
                    let left = open.count { facts.holds("call \($0) settled") }
                    return (await provider.caching?.waitingCallers ?? 0) + left > waitingBefore
                }
                if !joined { run.problems.append("call \(number) neither returned, parked nor joined") }
                return
            }
            guard await facts.wait(for: "call \(number) settled") else {
                run.problems.append("call \(number) for \(current) neither returned nor made a request")
                return
            }
            let returned = facts.holds("call \(number) returned")
            switch expected {
            case .hit(let token)?:
                let got = returned ? await tasks[number]?.cancellingValue : nil
                if got != token {
                    run.modelMismatches.append(
                        "call \(number) for \(current): the sample serves \(owner(of: token) ?? "?")'s cached token, the port \(returned ? "served another" : "made a request")"
                    )
                }
            case .request?:
                if returned || !backend.parked.contains(where: { $0.call == number && $0.id == current }) {
                    run.modelMismatches.append(
                        "call \(number) for \(current): the sample makes a request, the port did not")
                }
            case nil: break
            }
        }

        func answer() async {
            let parked = backend.parked
            guard !parked.isEmpty else { return }
            let request = parked[Int.random(in: 0..<parked.count, using: &rng)]
            guard let token = backend.release(request.number) else { return }
            // The caller of the request returns once the completion has run.
            let got = await request.call.flatMap { tasks[$0] }?.cancellingValue
            if logic == .swiftSample {
                if let held = swiftModel.authToken, held.id == current, held.expiration > now, request.id != current {
                    run.lateReplacements += 1
                }
                swiftModel.answer(token, expiration: Double(request.mintedAt + backend.lifetime), id: request.id)
            } else if logic == .objcSample {
                objcModel.answer(
                    token, seconds: Double(backend.lifetime), answeredAt: clock.now().timeIntervalSince1970)
            }
            if logic != .tokendash, got != token {
                run.modelMismatches.append(
                    "request \(request.number) for \(request.id): its caller did not get its answer")
            }
        }

        while run.switches < switches, run.problems.isEmpty {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<3:
                current = ids.filter { $0 != current }[Int.random(in: 0..<(ids.count - 1), using: &rng)]
                run.switches += 1
                await call()
            case 3..<6:
                await call()
            default:
                await answer()
            }
        }
        // The answers still out come in, in random order.
        while !backend.parked.isEmpty, run.problems.isEmpty, !Task.isCancelled { await answer() }
        // Cancelled (the suite's time limit), or stopped at a problem: the calls still parked never
        // end, and awaiting them would hang the whole run past the limit, which cannot cancel
        // these unstructured tasks. (A full run hung here, every thread idle, after the limit.)
        if Task.isCancelled { run.problems.append("cancelled with \(backend.parked.count) requests still parked") }
        if !run.problems.isEmpty { return run }
        for (number, task) in tasks {
            guard let token = await task.cancellingValue, let id = asked[number] else { continue }
            if owner(of: token) != id { run.staleServes += 1 }
        }
        run.requests = backend.arrivals
        return run
    }

    /// The stale serve: the Objective-C sample's completion caches an answer for the trip the SDK
    /// has left (003:189 / 000:161) and serves it for the trip it is on now. The port must do it
    /// exactly when the sample does, and it must happen.
    @Test(arguments: [UInt64(1), 2, 3])
    func theObjCSampleServesALateAnswerForTheOldIDToTheNewOne(seed: UInt64) async {
        let run = await Self.switchRun(.objcSample, seed: seed)
        #expect(run.problems.isEmpty, "seed \(seed): \(run.problems.prefix(3))")
        #expect(run.switches == 1000)
        #expect(run.modelMismatches.isEmpty, "seed \(seed): \(run.modelMismatches.prefix(5))")
        #expect(run.staleServes > 0, "seed \(seed): no stale serve in \(run.calls) calls")
        // No single-flight either: a request for nearly every call that missed.
        #expect(run.requests > run.switches, "seed \(seed)")
    }

    /// The Swift sample tags its cached token with the ID its call captured (003:95-96 / 000:80):
    /// never served for another ID, but a late answer for the old ID replaces the current one's
    /// token, whose next call asks the backend again. The port must do exactly that.
    @Test(arguments: [UInt64(1), 2, 3])
    func theSwiftSampleNeverServesAnotherIDsTokenButALateAnswerReplacesTheCurrentOne(seed: UInt64) async {
        let run = await Self.switchRun(.swiftSample, seed: seed)
        #expect(run.problems.isEmpty, "seed \(seed): \(run.problems.prefix(3))")
        #expect(run.switches == 1000)
        #expect(run.modelMismatches.isEmpty, "seed \(seed): \(run.modelMismatches.prefix(5))")
        #expect(run.staleServes == 0, "seed \(seed)")
        #expect(run.lateReplacements > 0, "seed \(seed): no late answer replaced the current trip's token")
    }

    /// tokendash's core under the same switches never serves another ID's token.
    @Test(arguments: [UInt64(1), 2, 3])
    func tokendashNeverServesAnotherIDsToken(seed: UInt64) async throws {
        let run = await Self.switchRun(.tokendash, seed: seed)
        #expect(run.problems.isEmpty, "seed \(seed): \(run.problems.prefix(3))")
        #expect(run.switches == 1000)
        #expect(run.staleServes == 0, "seed \(seed)")
    }

    // MARK: - No single-flight

    /// Callers that miss together: one request each in the samples (003:75 / 000:62, 003:198 /
    /// 000:170, a data task per call), one in all for tokendash.
    @Test(arguments: ProviderLogic.allCases)
    func concurrentCallersOnAMiss(logic: ProviderLogic) async throws {
        let callers = 50
        let facts = Facts()
        let backend = ParkingBackend(clock: ManualClock(), facts: facts)
        let provider = Self.provider(logic, backend)
        let tasks = (1...callers).map { Self.startCall($0, id: "trip-1", on: provider, facts: facts) }
        if logic == .tokendash {
            let caching = try #require(provider.caching)
            #expect(await eventually { await caching.waitingCallers == callers })
            #expect(backend.arrivals == 1)
        } else {
            #expect(await facts.wait(for: "arrived \(callers)"), "\(logic): fewer than \(callers) requests")
            #expect(await provider.isFetching)
        }
        backend.releaseAll()
        var tokens: [String] = []
        for task in tasks { if let token = await task.cancellingValue { tokens.append(token) } }
        #expect(tokens.count == callers)
        #expect(backend.arrivals == (logic == .tokendash ? 1 : callers))
        #expect(Set(tokens).count == (logic == .tokendash ? 1 : callers))
    }

    // MARK: - No refresh-ahead, and where each sample's expiry falls

    /// Fetches for `id` through the parking backend: the call, its request, its release.
    static func fetch(
        _ provider: ChosenTokenProvider<TripAuthorizationContext>, _ backend: ParkingBackend, id: String = "trip-1",
        latency: TimeInterval = 0
    ) async throws -> String {
        let before = backend.arrivals
        let task = Task { try await provider.fetchToken(for: trip(id)) }
        guard await backend.facts.wait(for: "arrived \(before + 1)") else {
            throw FleetAuthError.other("no request was made")
        }
        backend.clock.advance(by: latency)
        backend.release(before + 1)
        return try await task.cancellingValue
    }

    /// A call that must be served from the cache: it returns without a request.
    static func hit(
        _ provider: ChosenTokenProvider<TripAuthorizationContext>, _ backend: ParkingBackend,
        id: String = "trip-1"
    ) async throws -> String? {
        let facts = backend.facts
        let before = backend.arrivals
        let number = Int.random(in: 1_000_000..<Int.max)
        let task = startCall(number, id: id, on: provider, facts: facts)
        guard await facts.wait(for: "call \(number) settled") else { return nil }
        guard backend.arrivals == before else {
            backend.releaseAll()
            _ = await task.cancellingValue
            return nil
        }
        return await task.cancellingValue
    }

    /// The samples ask the backend only once their token has expired (003:66-67 / 000:54-55 and
    /// 003:147-149 / 000:122-124): every call before is a hit. tokendash starts a refresh while the
    /// old token is still served, `refreshMargin` before expiry.
    @Test(arguments: ProviderLogic.allCases)
    func onlyTokendashRefreshesAhead(logic: ProviderLogic) async throws {
        let clock = ManualClock()
        let backend = ParkingBackend(clock: clock)
        let provider = Self.provider(logic, backend)
        let first = try await Self.fetch(provider, backend)
        // 200 s before expiry: inside tokendash's 300 s margin (±10 %), long before the samples'.
        clock.advance(by: 3400)
        if logic == .tokendash {
            // Served at once, the refresh started beside it.
            #expect(try await provider.fetchToken(for: trip("trip-1")) == first)
            #expect(await backend.facts.wait(for: "arrived 2"), "tokendash refreshes ahead")
            backend.releaseAll()
        } else {
            #expect(
                try await Self.hit(provider, backend) == first,
                "\(logic): the token is still served 200 s before expiry")
            clock.advance(by: 199)
            #expect(
                try await Self.hit(provider, backend) == first, "\(logic): 1 s before expiry, still the cached token")
            #expect(backend.arrivals == 1, "\(logic): no request before expiry")
        }
    }

    /// The Swift sample compares the instant the response named with now (003:67 / 000:55
    /// `authToken.expiration > Date.now.timeIntervalSince1970`): however late the answer came, the
    /// token is served until its expiry and not at it.
    @Test func theSwiftSampleExpiresAtTheInstantTheResponseNames() async throws {
        let clock = ManualClock()
        let start = clock.now()
        let backend = ParkingBackend(clock: clock)
        let provider = Self.provider(.swiftSample, backend)
        let token = try await Self.fetch(provider, backend, latency: 120)
        clock.set(start.addingTimeInterval(3599))
        #expect(try await Self.hit(provider, backend) == token)
        clock.set(start.addingTimeInterval(3600))
        #expect(try await Self.hit(provider, backend) == nil, "at the instant itself the sample asks again")
        #expect(backend.arrivals == 2)
    }

    /// The Objective-C sample adds the seconds the response gave to the time the answer is handled
    /// (003:187 / 000:159 `_tokenExpiration = [[NSDate date] timeIntervalSince1970] + expirationTime`):
    /// a token minted at 0 that took 120 s to arrive is served until 3,720, 120 s past its `exp`,
    /// and still at 3,720 itself (003:147 `>`).
    @Test func theObjCSampleCountsTheExpiryFromTheAnswer() async throws {
        let clock = ManualClock()
        let start = clock.now()
        let backend = ParkingBackend(clock: clock)
        let provider = Self.provider(.objcSample, backend)
        let token = try await Self.fetch(provider, backend, latency: 120)
        guard case .objcSample(let objc) = provider else {
            Issue.record("not the ObjC port")
            return
        }
        #expect(objc.sampleExpiration == start.addingTimeInterval(3720))
        clock.set(start.addingTimeInterval(3700))
        let expired = try #require(try JWTInspector.decode(token).expiresAt)
        #expect(expired < clock.now())
        #expect(try await Self.hit(provider, backend) == token, "an expired token is still served")
        clock.set(start.addingTimeInterval(3720))
        #expect(try await Self.hit(provider, backend) == token)
        clock.set(start.addingTimeInterval(3721))
        #expect(try await Self.hit(provider, backend) == nil)
        #expect(backend.arrivals == 2)
    }

    /// The same answer without latency: both samples' expiries fall at the token's `exp`, but the
    /// Swift sample asks again at that instant and the Objective-C sample one step later.
    @Test func atTheExpiryInstantTheSwiftSampleAsksAndTheObjCSampleServes() async throws {
        for logic in [ProviderLogic.swiftSample, .objcSample] {
            let clock = ManualClock()
            let start = clock.now()
            let backend = ParkingBackend(clock: clock)
            let provider = Self.provider(logic, backend)
            let token = try await Self.fetch(provider, backend)
            clock.set(start.addingTimeInterval(3600))
            let served = try await Self.hit(provider, backend)
            #expect(served == (logic == .objcSample ? token : nil), "\(logic)")
        }
    }

    /// An answer without a number under the expiry key: the Swift sample drops it as `missingData`
    /// (003:86-92 / 000:72-78); the Objective-C sample caches the token but keeps `_tokenExpiration`
    /// as it was (003:185 / 000:157), 0 after an ID change, so each call asks again.
    @Test func anAnswerWithoutAnExpiryNumber() async throws {
        let tokenOnly: ParkingBackend.Answer = { jwt, _ in
            TransportResponse(status: 200, body: Data("{\"jwt\":\"\(jwt)\"}".utf8))
        }
        let swiftBackend = ParkingBackend(clock: ManualClock(), answer: tokenOnly)
        let swift = Self.provider(.swiftSample, swiftBackend)
        await #expect(throws: FleetAuthError.self) { try await Self.fetch(swift, swiftBackend) }
        #expect(await swift.snapshot.token == nil)
        #expect(await swift.lastFailure != nil)

        let objcBackend = ParkingBackend(clock: ManualClock(), answer: tokenOnly)
        let objc = Self.provider(.objcSample, objcBackend)
        let first = try await Self.fetch(objc, objcBackend)
        #expect(await objc.snapshot.token?.token == first, "cached all the same")
        #expect(try await Self.hit(objc, objcBackend) == nil, "expired at 0: asked again")
        #expect(objcBackend.arrivals == 2)
    }

    // MARK: - Small things each sample does

    @Test(arguments: [ProviderLogic.swiftSample, .objcSample])
    func aMissingContextIsAnError(logic: ProviderLogic) async {
        let provider = Self.provider(logic, ParkingBackend(clock: ManualClock()))
        await #expect(throws: FleetAuthError.missingAuthorizationContext(.consumer)) {
            try await provider.fetchToken(for: nil)
        }
        await #expect(throws: FleetAuthError.missingAuthorizationContext(.consumer)) {
            try await provider.forceRefresh()
        }
    }

    /// The Swift sample keeps its token across a switch (it is only not served for the new ID), so
    /// switching back within its lifetime is a hit; the Objective-C sample dropped it at the switch.
    @Test func switchingBackServesTheSwiftSamplesKeptTokenOnly() async throws {
        for logic in [ProviderLogic.swiftSample, .objcSample] {
            let backend = ParkingBackend(clock: ManualClock())
            let provider = Self.provider(logic, backend)
            let a = try await Self.fetch(provider, backend, id: "trip-A")
            // trip-B's request stays out: the Swift sample's token for trip-A is still the one held.
            let facts = backend.facts
            let b = Self.startCall(1, id: "trip-B", on: provider, facts: facts)
            #expect(await facts.wait(for: "call 1 settled"))
            let back = try await Self.hit(provider, backend, id: "trip-A")
            #expect(back == (logic == .swiftSample ? a : nil), "\(logic)")
            backend.releaseAll()
            _ = await b.cancellingValue
        }
    }

    /// The ports publish tokendash's events: what was fetched and why, the ID change, counted hits.
    @Test(arguments: [ProviderLogic.swiftSample, .objcSample])
    func theSamplesPublishTheDashboardsEvents(logic: ProviderLogic) async throws {
        // Hits are published by the test's flush only: the broadcaster's own 250 ms timer could
        // fire between the two on a loaded machine and split them into two events.
        let events = EventBroadcaster(hitFlushInterval: .seconds(3600))
        let recorder = EventRecorder(events)
        let backend = ParkingBackend(clock: ManualClock())
        let provider = Self.provider(logic, backend, events: events)
        _ = try await Self.fetch(provider, backend, id: "trip-A")
        try await recorder.next("fetch started") { $0.kind == .fetchStarted(reason: .noToken) && $0.id == "trip-A" }
        try await recorder.next(named: "fetched")
        _ = try await Self.hit(provider, backend, id: "trip-A")
        _ = try await Self.hit(provider, backend, id: "trip-A")
        events.flushCountedEvents()
        try await recorder.next("two hits") {
            if case .cacheHit(let count, _) = $0.kind { return count == 2 && $0.id == "trip-A" }
            return false
        }
        _ = try await Self.fetch(provider, backend, id: "trip-B")
        try await recorder.next("ID change") { $0.kind == .idChanged(from: "trip-A", to: "trip-B") }
        if logic == .objcSample { try await recorder.next(named: "cache_dropped") }
        try await recorder.next("fetch for the new ID") {
            $0.kind == .fetchStarted(reason: .idChanged) && $0.id == "trip-B"
        }
        try await recorder.next("fetched trip-B") { $0.name == "fetched" && $0.id == "trip-B" }
        #expect(await provider.snapshot.id == "trip-B")
    }

    /// One generic port per sample serves the delivery kinds too.
    @Test(arguments: [ProviderLogic.swiftSample, .objcSample])
    func theSamplesServeDeliveryVehicles(logic: ProviderLogic) async throws {
        let backend = ParkingBackend(kind: .deliveryDriver, clock: ManualClock())
        let provider = ChosenTokenProvider<DeliveryDriverAuthorizationContext>(
            logic, endpoint: .sampleBackend(.deliveryDriver, base: "http://backend.test"), transport: backend,
            refreshMargin: 300, clock: backend.clock)
        let task = Task {
            try await provider.fetchToken(for: DeliveryDriverAuthorizationContext(deliveryVehicleID: "van-1"))
        }
        #expect(await backend.facts.wait(for: "arrived 1"))
        backend.release(1)
        let token = try await task.cancellingValue
        #expect(owner(of: token, kind: .deliveryDriver) == "van-1")
        #expect(
            try await provider.fetchToken(for: DeliveryDriverAuthorizationContext(deliveryVehicleID: "van-1")) == token)
        #expect(provider.logic == logic)
    }
}
