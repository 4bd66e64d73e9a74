import Foundation
import JSONValues
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TokenJudging
import TokenReading

/// The calls a source provider made to its class and what the class handed back, behind one
/// lock, so the host's reader thread answers a call itself: a cached `fetchToken` is a request
/// line out and a completion line in, with no stream or actor hop between them, and the return
/// line that follows is booked on that thread too, waking nothing. Not generic, unlike the
/// provider: its tables are specialised once rather than looked up through metadata at each call.
final class SourceCallBook: Sendable {
    struct Call {
        var id: String
        var started: Date
        var reason: FetchReason
        var waiter: CheckedContinuation<String, any Error>?
        var completions = 0
        var returned = false
        var timedOut = false
        /// Neither answered nor past its deadline: a call still watched.
        var isOpen: Bool { completions == 0 && !timedOut }
    }

    /// A waiting caller and its answer, resumed once the lock is let go.
    typealias Answer = (waiter: CheckedContinuation<String, any Error>, result: Result<String, FleetAuthError>)

    struct State {
        var calls: [Int: Call] = [:]
        /// Calls answered and returned, the latest 256, by the ID they were for and how often their
        /// completion was called (-1: after its deadline): a completion that comes again is still seen.
        var finished: [Int: (id: String, completions: Int)] = [:]
        var nextCall = 1
        var currentID: String?
        var token: FetchedToken?
        /// The text of the token the class last handed back, accepted or not.
        var lastHandedBack: String?
        var failure: FleetAuthError?
        var refused: String?
        var reportedExpired: Set<String> = []
        /// The host process from its start to its end, and whether its class is made.
        var connection: HostConnection?
        var ready = false
        /// Which host's lines are listened to: a line from an earlier one is dropped.
        var generation = 0
        /// Why tokendash ended the host, when it did; a death without one is a crash.
        var endedBecause: String?
        /// Whether a task watches the open calls' deadlines.
        var watched = false

        /// Moves a call that has returned and was answered (or passed its deadline) out of the calls watched.
        mutating func retireIfDone(_ number: Int) {
            guard let call = calls[number], call.returned, !call.isOpen, call.waiter == nil else { return }
            calls.removeValue(forKey: number)
            finished[number] = (call.id, call.timedOut ? -1 : call.completions)
            // Calls retire in about the order they were made: the one 256 before goes (a straggler stays a little longer).
            finished.removeValue(forKey: number - 256)
        }

        /// The caller waiting on call `number`, with its answer, or nil when none waits.
        mutating func finish(_ number: Int, with result: Result<String, FleetAuthError>) -> Answer? {
            guard let waiter = calls[number]?.waiter else { return nil }
            calls[number]?.waiter = nil
            return (waiter, result)
        }
    }

    let kind: ProviderKind
    let settings: SourceSettings
    let clock: any SleepingClock
    let events: EventBroadcaster
    // Guards every call in flight, the token held and the host's state, for the provider's actor,
    // its callers and the host's reader thread alike.
    private let state = Mutex(State())

    init(kind: ProviderKind, settings: SourceSettings, clock: any SleepingClock, events: EventBroadcaster) {
        self.kind = kind
        self.settings = settings
        self.clock = clock
        self.events = events
    }

    /// What `body` reads or changes, under the lock.
    func read<T: Sendable>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }
    func change<T: Sendable>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }

    static func resume(_ answers: [Answer]) {
        for answer in answers { resume(answer) }
    }

    static func resume(_ answer: Answer?) {
        guard let answer else { return }
        answer.waiter.resume(with: answer.result.mapError { $0 as any Error })
    }

    /// Makes `id` the current one; true when it changed from another while a token was held.
    func switchTo(_ id: String) -> Bool {
        change { s in
            guard id != s.currentID else { return false }
            if let current = s.currentID { publish(.idChanged(from: current, to: id), id: id) }
            s.currentID = id
            return s.token != nil
        }
    }

    // MARK: - Calls

    /// One SDK call: `parallelCalls` requests to the host, the first one's answer returned.
    /// `watch` starts the task that watches deadlines, when none does.
    nonisolated(nonsending) func call(_ id: String, reason: FetchReason?, watch: () -> Void) async throws -> String {
        let count = max(1, settings.parallelCalls)
        let first = change { s in
            defer { s.nextCall += count }
            return s.nextCall
        }
        let tick = first..<(first + count)
        // A caller that goes away (the dashboard quitting, a test's time limit) is answered at once.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { waiter in
                start(tick, id: id, reason: reason, waiter: waiter, watch: watch)
            }
        } onCancel: {
            Self.resume(change { $0.finish(first, with: .failure(.cancelled)) })
        }
    }

    /// Books the tick's calls and sends them; `waiter` gets the first one's answer.
    private func start(
        _ tick: Range<Int>, id: String, reason: FetchReason?, waiter: CheckedContinuation<String, any Error>,
        watch: () -> Void
    ) {
        guard !Task.isCancelled else { return waiter.resume(throwing: FleetAuthError.cancelled) }
        let (host, unwatched) = change { s in
            let started = clock.now()
            let why =
                reason
                ?? (s.token == nil
                    ? .noToken : (s.token.map { $0.expiresAt <= started } == true ? .expired : .refreshAhead))
            for number in tick { s.calls[number] = Call(id: id, started: started, reason: why) }
            s.calls[tick.lowerBound]?.waiter = waiter
            defer { s.watched = true }
            return (s.connection, !s.watched)
        }
        for number in tick {
            guard host?.send(HostMessage.request(call: number, id: id)) != true else { continue }
            let failure = FleetAuthError.other("your provider's host does not read its requests; it is restarted")
            Self.resume(change { $0.finish(number, with: .failure(failure)) })
            endHost(because: "your class's host stopped reading its requests")
        }
        if unwatched { watch() }
    }

    /// The earliest deadline of an open call; nil, and no longer watched, when none is open. Calls
    /// fall due in the order they were made, so one task watches them all.
    func nextDeadline() -> Date? {
        change { s in
            let deadline = s.calls.values.filter(\.isOpen).map(\.started).min()
                .map { $0.addingTimeInterval(settings.completionTimeout) }
            if deadline == nil { s.watched = false }
            return deadline
        }
    }

    func stopWatching() { change { $0.watched = false } }

    /// Fails the calls whose deadline passed by `now`; the reason to end the host when one of them
    /// never returned (its class blocks the caller's thread).
    func deadlinesPassed(at now: Date) -> String? {
        var answers: [Answer] = []
        let blocked = change { s -> String? in
            let due = s.calls.filter {
                $0.value.isOpen && $0.value.started.addingTimeInterval(settings.completionTimeout) <= now
            }
            var blocked: String?
            for number in due.keys.sorted() {
                guard var call = s.calls[number], call.isOpen else { continue }
                call.timedOut = true
                s.calls[number] = call
                defer { s.retireIfDone(number) }
                let seconds = SourceCallBook.seconds(settings.completionTimeout)
                if call.returned {
                    let breach = ContractBreach(
                        .completionMissing,
                        "completion missing: fetchToken returned but never called its completion within \(seconds) s (the SDK waits for it)"
                    )
                    publish(.breach(breach), id: call.id)
                    if let answer = s.finish(number, with: .failure(.other(breach.sentence))) { answers.append(answer) }
                } else {
                    let cause = blockedCause(seconds: settings.completionTimeout)
                    let text = cause + "; its host was killed and is restarted"
                    if let answer = s.finish(number, with: .failure(.other(text))) { answers.append(answer) }
                    blocked = blocked ?? cause
                }
            }
            return blocked
        }
        Self.resume(answers)
        return blocked
    }

    /// Why a call that never returned ends the host. On Android the call runs on the Driver
    /// SDK's location-update thread, so the wait is also counted in updates not sent.
    func blockedCause(seconds: TimeInterval) -> String {
        let words = SourceCallBook.seconds(seconds)
        guard settings.contract == .synchronousReturn else {
            return "fetchToken(with:completion:) blocked its caller's thread for \(words) s"
        }
        // The Consumer SDK's page: "no information can be obtained from Fleet Engine until this method returns".
        guard kind.role == .driver else {
            return
                "getToken(context) blocked the Consumer SDK's thread for \(words) s, and no trip information can be had from Fleet Engine until it returns"
        }
        let heldBack =
            settings.locationUpdateInterval.map { interval -> String in
                let count = interval > 0 ? Int((seconds / interval).rounded(.down)) : 0
                return ", holding back \(count) location update\(count == 1 ? "" : "s")"
            } ?? ", holding back its location updates"
        return "getToken(context) blocked the Driver SDK's location-update thread for \(words) s\(heldBack)"
    }

    /// Why the class handed back no token, in the words of its SDK's contract: a completion
    /// with neither or with an error (iOS), or a `getToken` that returned null or "" or threw.
    func noTokenReason(token: String?, error: String?) -> String {
        switch settings.contract {
        case .completionHandler:
            return error.map { "your code's completion gave an error: \($0)" }
                ?? "your code's completion gave neither a token nor an error"
        case .synchronousReturn:
            if let error { return "getToken threw \(error)" }
            return token == nil
                ? "getToken returned null: the SDK has no token to send with its update"
                : "getToken returned an empty string: the SDK has no token to send with its update"
        }
    }

    // MARK: - The host

    /// Takes `host` as the one whose lines count from now on; the generation its lines carry.
    func hostStarting() -> Int {
        change { s in
            s.generation += 1
            s.endedBecause = nil
            return s.generation
        }
    }

    func hostStarted(_ host: HostConnection) { change { $0.connection = host } }

    /// Kills the host for `reason` (its cause, which the kill's event says); its end (`.exited`)
    /// then fails what waits on it.
    func endHost(because reason: String) {
        let host = change { s -> HostConnection? in
            guard let host = s.connection else { return nil }
            s.endedBecause = s.endedBecause ?? reason
            return host
        }
        host?.terminate()
    }

    /// The host ended for `error`: the open calls fail with it.
    func hostEnded(_ error: FleetAuthError) {
        let answers = change { s -> [Answer] in
            s.connection = nil
            s.ready = false
            s.generation += 1
            s.failure = error
            var answers: [Answer] = []
            for (number, call) in s.calls where call.isOpen {
                if call.waiter != nil {
                    publish(.fetchFailed(error, latency: clock.now().timeIntervalSince(call.started)), id: call.id)
                }
                if let answer = s.finish(number, with: .failure(error)) { answers.append(answer) }
            }
            s.calls = [:]
            return answers
        }
        Self.resume(answers)
    }

    /// A line from the host of `generation`, read on its reader thread: a call's return or
    /// completion is booked here and now; false for what the provider's actor handles.
    func hostSaid(_ message: HostMessage, generation: Int) -> Bool {
        switch message {
        case .ready, .exiting:
            return false
        case .returned(let number):
            change { s in
                guard s.generation == generation else { return }
                s.calls[number]?.returned = true
                s.retireIfDone(number)
            }
        case .completion(let number, let token, let error):
            Self.resume(
                change { s in
                    s.generation == generation ? completed(&s, number, token: token, error: error) : nil
                })
        }
        return true
    }

    // MARK: - Judging what the class hands back

    private func completed(_ s: inout State, _ number: Int, token text: String?, error: String?) -> Answer? {
        guard var call = s.calls[number] else {
            guard let done = s.finished[number], done.completions >= 1 else { return nil }
            s.finished[number]?.completions += 1
            if done.completions == 1 { publishRepeated(id: done.id) }
            return nil
        }
        defer { s.retireIfDone(number) }
        call.completions += 1
        s.calls[number] = call
        if call.completions == 2 { publishRepeated(id: call.id) }
        guard call.completions == 1, !call.timedOut else { return nil }
        let now = clock.now()
        let latency = now.timeIntervalSince(call.started)
        // Only the SDK's own call (the first of a tick) reports; the others are judged for breaches alone.
        let reports = call.waiter != nil
        guard let text, !text.isEmpty else {
            let failure = FleetAuthError.other(noTokenReason(token: text, error: error))
            if reports { record(&s, failure, refused: nil, call: call, latency: latency) }
            return s.finish(number, with: .failure(failure))
        }
        let again = text == s.lastHandedBack
        s.lastHandedBack = text
        // The token judged last time, handed back again for the same ID and not yet expired, is a
        // cache hit: the rules said their piece when it came; only its expiry can have changed.
        if again, let held = s.token, held.token == text, held.id == call.id,
            held.jwt.expiresAt.map({ $0 > now }) ?? false
        {
            if reports { publish(.cacheHit(count: 1, expiresAt: held.expiresAt), id: call.id) }
            return s.finish(number, with: .success(text))
        }
        let judged = judge(text, id: call.id, now: now)
        if case .failure(.alreadyExpired) = judged, s.reportedExpired.insert(text).inserted {
            let past =
                (try? JWTInspector.decode(text))?.expiresAt.map {
                    " \(SourceCallBook.seconds(now.timeIntervalSince($0))) s past its exp"
                } ?? " past its exp"
            publish(
                .breach(
                    ContractBreach(
                        .servedAfterExp,
                        "served after exp: your code handed back a token\(past), which Fleet Engine refuses"
                            + (settings.backendExpiry().map { "; " + $0.explanation(now: now) } ?? "")
                    )),
                id: call.id)
        }
        switch judged {
        case .success(let fetched):
            if reports {
                if again, let held = s.token, held.token == text {
                    publish(.cacheHit(count: 1, expiresAt: held.expiresAt), id: call.id)
                } else {
                    publish(.fetchStarted(reason: call.reason), id: call.id, at: call.started)
                    publish(.fetched(fetched, latency: latency), id: call.id)
                    s.token = fetched
                    s.failure = nil
                    s.refused = nil
                }
            }
            return s.finish(number, with: .success(text))
        case .failure(let error):
            if reports { record(&s, error, refused: text, call: call, latency: latency, requested: !again) }
            return s.finish(number, with: .failure(error))
        }
    }

    private func publishRepeated(id: String) {
        publish(
            .breach(
                ContractBreach(
                    .completionRepeated,
                    "completion repeated: one fetchToken call called its completion twice (the SDK expects exactly one call)"
                )),
            id: id)
    }

    private func record(
        _ s: inout State, _ error: FleetAuthError, refused text: String?, call: Call, latency: TimeInterval,
        requested: Bool = false
    ) {
        if requested { publish(.fetchStarted(reason: call.reason), id: call.id, at: call.started) }
        publish(.fetchFailed(error, latency: latency), id: call.id)
        s.failure = error
        s.refused = error.isTokenRejection ? text : nil
    }

    /// The token as the rules see it, read as any backend's answer holding only the token.
    private func judge(_ text: String, id: String, now: Date) -> Result<FetchedToken, FleetAuthError> {
        var endpoint = TokenEndpoint(
            kind: kind, urlTemplate: "", tokenKey: "token", expiryMode: .jwt, providerID: settings.providerID)
        endpoint.lifetimeChosen = settings.lifetimeChosen
        let body = JSONValue.object(["token": .string(text)]).description
        do {
            var fetched = try TokenResponseDecoder(endpoint: endpoint).decode(
                TransportResponse(status: 200, body: Data(body.utf8)), id: id, now: now)
            fetched.shape = nil
            return .success(fetched)
        } catch {
            return .failure(error)
        }
    }

    func publish(_ kind: ProviderEvent.Kind, id: String, at time: Date? = nil) {
        events.publish(ProviderEvent(time: time ?? clock.now(), provider: self.kind, id: id, kind: kind))
    }

    static func seconds(_ t: TimeInterval) -> String { String(format: "%g", (t * 10).rounded() / 10) }
}
