import FleetAuth
import Foundation

/// The customer's own provider class, driven as the SDK drives it: one instance in its host for
/// the whole run, `fetchToken` at each update and each ID switch, from `parallelCalls` threads at
/// once (the SDK "may invoke [it] from arbitrary queues"). What the class hands back becomes the
/// events every provider has (a new token is a request and a token, judged by the rules; the same
/// token again is a cache hit), and each way it breaks the SDK's contract a `ContractBreach`.
/// A crash, a hang in `init` or in `fetchToken`, or a flood of prints ends the host, never tokendash;
/// the next call starts it again after a backoff.
public actor SourceTokenProvider<Context: AuthorizationContext>: TokenProviderCore {
    public nonisolated let kind: ProviderKind
    public nonisolated let events: EventBroadcaster
    public nonisolated let launch: HostLaunch
    private let settings: SourceSettings
    private let clock: any SleepingClock

    private var connection: HostConnection?
    private var listening: Task<Void, Never>?
    private var ready = false
    private var readyWaiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    private var nextWaiter = 0
    /// Why tokendash ended the host, when it did; a death without one is a crash.
    private var endedBecause: String?
    private var restartAt: Date?
    private var restarts = 0
    private var printed: [String] = []

    private struct Call {
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
    private var calls: [Int: Call] = [:]
    /// Calls answered and returned, the latest 256, by the ID they were for and how often their
    /// completion was called (-1: after its deadline): a completion that comes again is still seen.
    private var finished: [Int: (id: String, completions: Int)] = [:]
    private var nextCall = 1

    private var currentID: String?
    private var token: FetchedToken?
    /// The text of the token the class last handed back, accepted or not.
    private var lastHandedBack: String?
    private var failure: FleetAuthError?
    private var refused: String?
    private var reportedRaces: Set<[Int]> = []
    private var reportedExpired: Set<String> = []

    public init(
        launch: HostLaunch, settings: SourceSettings, clock: any SleepingClock = SystemClock(),
        events: EventBroadcaster = EventBroadcaster()
    ) {
        kind = Context.kind
        self.launch = launch
        self.settings = settings
        self.clock = clock
        self.events = events
    }

    // MARK: - TokenProviderCore

    public nonisolated(nonsending) func fetchToken(for context: Context?) async throws -> String {
        try await ask(context?.id, reason: nil)
    }

    /// The class has no force refresh: the SDK can only ask again, and so does this.
    @discardableResult
    public func forceRefresh() async throws -> String {
        guard let currentID else { throw FleetAuthError.missingAuthorizationContext(kind) }
        publish(.forcedRefresh, id: currentID)
        return try await ask(currentID, reason: .forced)
    }

    public var snapshot: (id: String?, token: FetchedToken?) { (currentID, token) }
    public var lastFailure: FleetAuthError? { failure }
    public var isFetching: Bool { calls.values.contains(where: \.isOpen) }
    public var refusedToken: String? { refused }
    /// Calls whose `fetchToken` returned and whose completion has not come: what a missing
    /// completion looks like before its deadline.
    public var callsAwaitingCompletion: Int { calls.values.filter { $0.returned && $0.isOpen }.count }
    /// Calls still inside `fetchToken`.
    public var callsNotReturned: Int { calls.values.filter { !$0.returned && $0.isOpen }.count }
    /// Whether the host is up and its class made.
    public var hostReady: Bool { ready }
    /// Whether a host process runs (its class made or not).
    public var hostStarted: Bool { connection != nil }
    /// The host's process ID while one runs (the bench reads its CPU time).
    public var hostProcess: pid_t? { connection?.pid }
    public nonisolated func publishCountedEvents() {}

    /// Ends the host; the provider starts another if asked again.
    public func shutdown() {
        endedBecause = "tokendash stopped"
        connection?.terminate()
        listening?.cancel()
    }

    // MARK: - Calls

    private func ask(_ id: String?, reason: FetchReason?) async throws -> String {
        // The SDK always passes a context with an ID; without one the class is never called.
        guard let id, !id.isEmpty else { throw FleetAuthError.missingAuthorizationContext(kind) }
        var reason = reason
        if id != currentID {
            if let currentID { publish(.idChanged(from: currentID, to: id), id: id) }
            currentID = id
            if reason == nil, token != nil { reason = .idChanged }
        }
        settings.announce(id)
        try await ensureHost()
        let started = clock.now()
        let why =
            reason
            ?? (token == nil ? .noToken : (token.map { $0.expiresAt <= started } == true ? .expired : .refreshAhead))
        // The first call's answer is the SDK's; the others are the same SDK asking from other threads.
        var first: Int?
        for _ in 0..<max(1, settings.parallelCalls) {
            let number = nextCall
            nextCall += 1
            calls[number] = Call(id: id, started: started, reason: why)
            if first == nil { first = number }
        }
        guard let first else { throw FleetAuthError.cancelled }
        let tick = first..<nextCall
        // A caller that goes away (the dashboard quitting, a test's time limit) is answered at once.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { waiter in
                start(calls: tick, waiter: waiter, id: id)
            }
        } onCancel: {
            Task { await self.finish(first, with: .failure(.cancelled)) }
        }
    }

    /// Sends the tick's calls; `waiter` gets the first one's answer.
    private func start(calls tick: Range<Int>, waiter: CheckedContinuation<String, any Error>, id: String) {
        guard !Task.isCancelled else { return waiter.resume(throwing: FleetAuthError.cancelled) }
        calls[tick.lowerBound]?.waiter = waiter
        for number in tick {
            guard connection?.send(HostMessage.request(call: number, id: id)) == true else {
                finish(
                    number, with: .failure(.other("your provider's host does not read its requests; it is restarted")))
                endHost(because: "it stopped reading its requests")
                continue
            }
        }
        armWatchdog()
    }

    /// One task watches every call's deadline, the earliest first (they fall in the order the calls
    /// were made), rather than a sleeping task per call.
    private var watchdog: Task<Void, Never>?

    private func armWatchdog() {
        guard watchdog == nil else { return }
        watchdog = Task { [clock] in
            while let deadline = self.earliestDeadline() {
                do { try await clock.sleep(until: deadline) } catch { break }
                self.deadlinesPassed(at: clock.now())
            }
            self.watchdogEnded()
        }
    }

    private func earliestDeadline() -> Date? {
        calls.values.filter(\.isOpen).map(\.started).min()
            .map { $0.addingTimeInterval(settings.completionTimeout) }
    }

    private func deadlinesPassed(at now: Date) {
        let due = calls.filter {
            $0.value.isOpen && $0.value.started.addingTimeInterval(settings.completionTimeout) <= now
        }
        for number in due.keys.sorted() { deadlinePassed(number) }
    }

    private func watchdogEnded() {
        watchdog = nil
        // A call made while the last check ran is watched too.
        if earliestDeadline() != nil { armWatchdog() }
    }

    private func deadlinePassed(_ number: Int) {
        guard var call = calls[number], call.isOpen else { return }
        call.timedOut = true
        calls[number] = call
        defer { retireIfDone(number) }
        let seconds = Self.seconds(settings.completionTimeout)
        if call.returned {
            let breach = ContractBreach(
                .completionMissing,
                "completion missing: fetchToken returned but never called its completion within \(seconds) s (the SDK waits for it)"
            )
            publish(.breach(breach), id: call.id)
            finish(number, with: .failure(.other(breach.sentence)))
        } else {
            let text =
                "fetchToken(with:completion:) blocked its caller's thread for \(seconds) s; its host was killed and is restarted"
            finish(number, with: .failure(.other(text)))
            endHost(because: text)
        }
    }

    private func finish(_ number: Int, with result: Result<String, FleetAuthError>) {
        guard let waiter = calls[number]?.waiter else { return }
        calls[number]?.waiter = nil
        waiter.resume(with: result.mapError { $0 as any Error })
    }

    // MARK: - The host

    private func ensureHost() async throws {
        if connection != nil, ready { return }
        if connection == nil {
            let now = clock.now()
            if let restartAt, restartAt > now {
                throw FleetAuthError.other(
                    "your provider's host is restarted in \(Self.seconds(restartAt.timeIntervalSince(now))) s, after: \(failure?.description ?? "it ended")"
                )
            }
            let host: HostConnection
            do {
                host = try HostConnection(
                    executable: launch.executable, fileName: launch.fileName, environment: launch.environment)
            } catch {
                throw FleetAuthError.other("cannot start your provider's host: \(error)")
            }
            connection = host
            endedBecause = nil
            printed = []
            listening = Task { for await output in host.outputs { self.handle(output, from: host) } }
            let deadline = now.addingTimeInterval(settings.startTimeout)
            Task { [clock] in
                try? await clock.sleep(until: deadline)
                await self.startDeadlinePassed(host)
            }
        }
        let waiter = nextWaiter
        nextWaiter += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled { return continuation.resume(throwing: FleetAuthError.cancelled) }
                readyWaiters[waiter] = continuation
            }
        } onCancel: {
            Task { await self.cancelReadyWaiter(waiter) }
        }
    }

    private func cancelReadyWaiter(_ waiter: Int) {
        readyWaiters.removeValue(forKey: waiter)?.resume(throwing: FleetAuthError.cancelled)
    }

    private func startDeadlinePassed(_ host: HostConnection) {
        guard connection === host, !ready else { return }
        endHost(
            because:
                "your class's init() did not return within \(Self.seconds(settings.startTimeout)) s; its host was killed and is restarted"
        )
    }

    /// Kills the host for `reason`; its end (`.exited`) then fails what waits on it.
    private func endHost(because reason: String) {
        guard let connection else { return }
        endedBecause = endedBecause ?? reason
        connection.terminate()
    }

    private func handle(_ output: HostConnection.Output, from host: HostConnection) {
        guard connection === host else { return }
        switch output {
        case .message(.ready):
            ready = true
            restarts = 0
            for waiter in readyWaiters.values { waiter.resume() }
            readyWaiters = [:]
        case .message(.returned(let number)):
            calls[number]?.returned = true
            retireIfDone(number)
        case .message(.completion(let number, let token, let error)):
            completed(number, token: token, error: error)
        case .printed(let line):
            let text = SecretRedactor.redact(line)
            printed.append(text)
            if printed.count > 20 { printed.removeFirst(printed.count - 20) }
            showPrinted(text)
        case .race(let race):
            guard reportedRaces.insert(race.lines).inserted else { return }
            publish(.breach(race.breach(source: launch.sourceText)), id: currentID ?? "")
        case .flooding:
            endHost(
                because:
                    "your code printed more than \(HostConnection.floodBytesPerSecond >> 20) MiB in a second; its host was killed and is restarted"
            )
        case .exited(let status):
            hostEnded(status: status)
        }
    }

    /// The class's prints in the log, at most `printsPerSecond` a second; the rest counted and said once the second is over.
    private func showPrinted(_ text: String) {
        let now = clock.now()
        if now.timeIntervalSince(printWindow) >= 1 {
            if printsDropped > 0 {
                publish(.printed("… \(printsDropped) more lines printed in that second"), id: currentID ?? "")
            }
            printWindow = now
            printsShown = 0
            printsDropped = 0
        }
        guard printsShown < Self.printsPerSecond else {
            printsDropped += 1
            return
        }
        printsShown += 1
        publish(.printed(text), id: currentID ?? "")
    }

    static var printsPerSecond: Int { 5 }
    private var printWindow = Date.distantPast
    private var printsShown = 0
    private var printsDropped = 0

    private func hostEnded(status: Int32) {
        let reason: String
        if let endedBecause {
            reason = endedBecause
        } else {
            let how = status > 128 ? "died of \(Self.signalName(status - 128))" : "exited with status \(status)"
            let last = Self.lastWords(printed).joined(separator: " | ")
            reason = "provider crashed: your class's host \(how)" + (last.isEmpty ? "" : ": " + last)
            publish(.breach(ContractBreach(.providerCrashed, reason)), id: currentID ?? "")
        }
        connection = nil
        ready = false
        listening = nil
        restarts += 1
        // 1, 2, 4 … 30 s between starts: a class that dies at once does not spin.
        restartAt = clock.now().addingTimeInterval(min(30, pow(2, Double(restarts - 1))))
        let error = FleetAuthError.other(reason)
        failure = error
        for waiter in readyWaiters.values { waiter.resume(throwing: error) }
        readyWaiters = [:]
        for (number, call) in calls where call.isOpen {
            if call.waiter != nil {
                publish(.fetchFailed(error, latency: clock.now().timeIntervalSince(call.started)), id: call.id)
            }
            finish(number, with: .failure(error))
        }
        calls = [:]
    }

    // MARK: - Judging what the class hands back

    private func completed(_ number: Int, token text: String?, error: String?) {
        guard var call = calls[number] else {
            guard let done = finished[number], done.completions >= 1 else { return }
            finished[number]?.completions += 1
            if done.completions == 1 { publishRepeated(id: done.id) }
            return
        }
        defer { retireIfDone(number) }
        call.completions += 1
        calls[number] = call
        if call.completions == 2 { publishRepeated(id: call.id) }
        guard call.completions == 1, !call.timedOut else { return }
        let now = clock.now()
        let latency = now.timeIntervalSince(call.started)
        // Only the SDK's own call (the first of a tick) reports; the others are judged for breaches alone.
        let reports = call.waiter != nil
        guard let text, !text.isEmpty else {
            let failure = FleetAuthError.other(
                error.map { "your code's completion gave an error: \($0)" }
                    ?? "your code's completion gave neither a token nor an error")
            if reports { record(failure, refused: nil, call: call, latency: latency) }
            finish(number, with: .failure(failure))
            return
        }
        let again = text == lastHandedBack
        lastHandedBack = text
        // The token judged last time, handed back again for the same ID and not yet expired, is a
        // cache hit: the rules said their piece when it came; only its expiry can have changed.
        if again, let held = token, held.token == text, held.id == call.id,
            held.jwt.expiresAt.map({ $0 > now }) ?? false
        {
            if reports { publish(.cacheHit(count: 1, expiresAt: held.expiresAt), id: call.id) }
            finish(number, with: .success(text))
            return
        }
        let judged = judge(text, id: call.id, now: now)
        if case .failure(.alreadyExpired) = judged, reportedExpired.insert(text).inserted {
            let exp =
                (try? JWTInspector.decode(text))?.expiresAt.map {
                    " (exp was \(Self.seconds(now.timeIntervalSince($0))) s ago)"
                } ?? ""
            publish(
                .breach(
                    ContractBreach(
                        .servedAfterExp,
                        "served after exp: your code handed back a token that had expired\(exp); Fleet Engine refuses it"
                    )),
                id: call.id)
        }
        switch judged {
        case .success(let fetched):
            if reports {
                if again, let held = token, held.token == text {
                    publish(.cacheHit(count: 1, expiresAt: held.expiresAt), id: call.id)
                } else {
                    publish(.fetchStarted(reason: call.reason), id: call.id, at: call.started)
                    publish(.fetched(fetched, latency: latency), id: call.id)
                    token = fetched
                    failure = nil
                    refused = nil
                }
            }
            finish(number, with: .success(text))
        case .failure(let error):
            if reports { record(error, refused: text, call: call, latency: latency, requested: !again) }
            finish(number, with: .failure(error))
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

    /// Moves a call that has returned and was answered (or passed its deadline) out of the calls watched.
    private func retireIfDone(_ number: Int) {
        guard let call = calls[number], call.returned, !call.isOpen, call.waiter == nil else { return }
        calls.removeValue(forKey: number)
        finished[number] = (call.id, call.timedOut ? -1 : call.completions)
        // Calls retire in about the order they were made: the one 256 before goes (a straggler stays a little longer).
        finished.removeValue(forKey: number - 256)
    }

    private func record(
        _ error: FleetAuthError, refused text: String?, call: Call, latency: TimeInterval, requested: Bool = false
    ) {
        if requested { publish(.fetchStarted(reason: call.reason), id: call.id, at: call.started) }
        publish(.fetchFailed(error, latency: latency), id: call.id)
        failure = error
        refused = error.isTokenRejection ? text : nil
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

    private func publish(_ kind: ProviderEvent.Kind, id: String, at time: Date? = nil) {
        events.publish(ProviderEvent(time: time ?? clock.now(), provider: self.kind, id: id, kind: kind))
    }

    /// What a dying host said, without the stack the runtime prints after it: the trap's own
    /// message ("…/Provider.swift:8: Fatal error: Unexpectedly found nil …") first.
    static func lastWords(_ lines: [String]) -> [String] {
        let fatal = lines.filter {
            $0.contains("Fatal error") || $0.contains("Precondition failed") || $0.contains("Assertion failed")
        }
        if !fatal.isEmpty { return Array(fatal.suffix(2)) }
        let frame = #"^\s*\d+\s+\S+\s+0x[0-9a-f]+"#
        return Array(
            lines.filter {
                $0.range(of: frame, options: .regularExpression) == nil && !$0.hasPrefix("Current stack trace")
            }.suffix(3))
    }

    static func seconds(_ t: TimeInterval) -> String { String(format: "%g", (t * 10).rounded() / 10) }

    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGILL: "SIGILL (a trap: a force-unwrapped nil, fatalError, a failed precondition)"
        case SIGTRAP: "SIGTRAP (a trap: a force-unwrapped nil, fatalError, a failed precondition)"
        case SIGSEGV: "SIGSEGV (a bad memory access)"
        case SIGABRT: "SIGABRT (abort)"
        case SIGBUS: "SIGBUS (a bad memory access)"
        case SIGKILL: "SIGKILL"
        default: "signal \(number)"
        }
    }
}

/// How a source provider is run: what the host is, and how long it may take.
public struct SourceSettings: Sendable {
    /// `--completion-timeout`: how long a call may go without its completion.
    public var completionTimeout: TimeInterval
    /// How long `init()` may take before the host is taken for hung.
    public var startTimeout: TimeInterval
    /// Threads calling at once per SDK call: two when looking for races, as the SDK may.
    public var parallelCalls: Int
    public var providerID: String?
    /// The backend is the embedded server, whose lifetime the user chose.
    public var lifetimeChosen: Bool
    /// Tells the embedded server's session route the SDK's current ID.
    public var announce: @Sendable (String) -> Void

    public init(
        completionTimeout: TimeInterval = 10, startTimeout: TimeInterval = 30, parallelCalls: Int = 2,
        providerID: String? = nil, lifetimeChosen: Bool = false,
        announce: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.completionTimeout = completionTimeout
        self.startTimeout = startTimeout
        self.parallelCalls = parallelCalls
        self.providerID = providerID
        self.lifetimeChosen = lifetimeChosen
        self.announce = announce
    }
}

/// A built host and what the provider needs to read its reports.
public struct HostLaunch: Sendable {
    public var executable: String
    /// The customer's file name as the build named it: ThreadSanitizer's frames are matched to it.
    public var fileName: String
    /// The text that was built, for the names a race report gives.
    public var sourceText: String
    public var environment: [String: String]

    public init(executable: String, fileName: String, sourceText: String, environment: [String: String]) {
        self.executable = executable
        self.fileName = fileName
        self.sourceText = sourceText
        self.environment = environment
    }
}
