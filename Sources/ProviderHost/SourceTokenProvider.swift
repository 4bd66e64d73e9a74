import Foundation
import ProviderEvents
import ProviderVocabulary
import Redaction
import TokenProviders
import TokenReading

/// The customer's own provider class, driven as the SDK drives it: one instance in its host for
/// the whole run, `fetchToken` at each update and each ID switch, from `parallelCalls` threads at
/// once (the SDK "may invoke [it] from arbitrary queues"). What the class hands back becomes the
/// events every provider has (a new token is a request and a token, judged by the rules; the same
/// token again is a cache hit), and each way it breaks the SDK's contract a `ContractBreach`.
/// A crash, a hang in `init` or in `fetchToken`, or a flood of prints ends the host, never tokendash;
/// the next call starts it again after a backoff.
///
/// The calls themselves are `SourceCallBook`'s: a call to a running host goes from its caller to
/// the host and back on the host's reader thread without this actor, which starts, watches and
/// restarts the host.
public actor SourceTokenProvider<Context: AuthorizationContext>: TokenProviderCore {
    public nonisolated let kind: ProviderKind
    public nonisolated let events: EventBroadcaster
    public nonisolated let launch: HostLaunch
    private nonisolated let settings: SourceSettings
    private nonisolated let clock: any SleepingClock
    private nonisolated let book: SourceCallBook

    private var listening: Task<Void, Never>?
    private var readyWaiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    private var nextWaiter = 0
    private var restartAt: Date?
    private var backoff = RestartBackoff()
    private var starts = 0
    /// When the running host was started, for the time it was up when it ends.
    private var hostStartedAt: Date?
    /// The exit status the class passed to `exit`, said by the host before it ended.
    private var classExitStatus: Int32?
    /// Whether the running host's ThreadSanitizer reported a race (its exit status is then its own).
    private var hostRaced = false
    private var printed: [String] = []
    private var reportedRaces: Set<[Int]> = []

    public init(
        launch: HostLaunch, settings: SourceSettings, clock: any SleepingClock = SystemClock(),
        events: EventBroadcaster = EventBroadcaster()
    ) {
        kind = Context.kind
        self.launch = launch
        self.settings = settings
        self.clock = clock
        self.events = events
        book = SourceCallBook(kind: Context.kind, settings: settings, clock: clock, events: events)
    }

    // MARK: - TokenProviderCore

    public nonisolated(nonsending) func fetchToken(for context: Context?) async throws -> String {
        try await ask(context?.id, reason: nil)
    }

    /// The class has no force refresh: the SDK can only ask again, and so does this.
    @discardableResult
    public func forceRefresh() async throws -> String {
        guard let currentID = book.read({ $0.currentID }) else {
            throw FleetAuthError.missingAuthorizationContext(kind)
        }
        book.publish(.forcedRefresh, id: currentID)
        return try await ask(currentID, reason: .forced)
    }

    public var snapshot: (id: String?, token: FetchedToken?) { book.read { ($0.currentID, $0.token) } }
    public var lastFailure: FleetAuthError? { book.read { $0.failure } }
    public var isFetching: Bool { book.read { $0.calls.values.contains(where: \.isOpen) } }
    public var refusedToken: String? { book.read { $0.refused } }
    /// Calls whose `fetchToken` returned and whose completion has not come: what a missing
    /// completion looks like before its deadline.
    public var callsAwaitingCompletion: Int { book.read { $0.calls.values.filter { $0.returned && $0.isOpen }.count } }
    /// Calls still inside `fetchToken`.
    public var callsNotReturned: Int { book.read { $0.calls.values.filter { !$0.returned && $0.isOpen }.count } }
    /// Whether the host is up and its class made.
    public var hostReady: Bool { book.read { $0.ready } }
    /// Whether a host process runs (its class made or not).
    public var hostStarted: Bool { book.read { $0.connection != nil } }
    /// How many hosts were started in this run: each that ended is said by one event.
    public var hostStarts: Int { starts }
    /// The host's process ID while one runs (the bench reads its CPU time).
    public var hostProcess: pid_t? { book.read { $0.connection?.pid } }
    public nonisolated func publishCountedEvents() {}

    /// Ends the host; the provider starts another if asked again.
    public func shutdown() {
        let host = book.change { s -> HostConnection? in
            s.endedBecause = Self.stoppedByTokendash
            return s.connection
        }
        host?.terminate()
        listening?.cancel()
    }

    // MARK: - Calls

    /// Runs on the caller's executor: a call to a host that is up touches no actor.
    private nonisolated(nonsending) func ask(_ id: String?, reason: FetchReason?) async throws -> String {
        // The SDK always passes a context with an ID; without one the class is never called.
        guard let id, !id.isEmpty else { throw FleetAuthError.missingAuthorizationContext(kind) }
        var reason = reason
        if book.switchTo(id), reason == nil { reason = .idChanged }
        settings.announce(id)
        if !book.read({ $0.connection != nil && $0.ready }) { try await ensureHost() }
        return try await book.call(id, reason: reason) { Task { await self.watchDeadlines() } }
    }

    /// One task watches every call's deadline, the earliest first, rather than a sleeping task per call.
    private func watchDeadlines() async {
        while let deadline = book.nextDeadline() {
            do { try await clock.sleep(until: deadline) } catch {
                book.stopWatching()
                return
            }
            if let blocked = book.deadlinesPassed(at: clock.now()) { book.endHost(because: blocked) }
        }
    }

    // MARK: - The host

    private func ensureHost() async throws {
        let (running, ready) = book.read { ($0.connection != nil, $0.ready) }
        if running, ready { return }
        if !running {
            let now = clock.now()
            if let restartAt, restartAt > now {
                throw FleetAuthError.other(
                    "your provider's host is restarted in \(SourceCallBook.seconds(restartAt.timeIntervalSince(now))) s, after: \(book.read { $0.failure }?.description ?? "it ended")"
                )
            }
            let generation = book.hostStarting()
            let host: HostConnection
            do {
                host = try HostConnection(
                    executable: launch.executable, fileNames: launch.sources.keys.sorted(),
                    environment: launch.environment, memoryLimit: settings.memoryLimit,
                    answers: { [book] in book.hostSaid($0, generation: generation) })
            } catch {
                throw FleetAuthError.other("cannot start your provider's host: \(error)")
            }
            book.hostStarted(host)
            starts += 1
            hostStartedAt = now
            classExitStatus = nil
            hostRaced = false
            printed = []
            listening = Task { for await output in host.outputs { self.handle(output, from: host) } }
            let deadline = now.addingTimeInterval(settings.startTimeout)
            Task { [clock] in
                try? await clock.sleep(until: deadline)
                self.startDeadlinePassed(host)
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
        guard book.read({ $0.connection === host && !$0.ready }) else { return }
        book.endHost(
            because:
                "your class's \(settings.contract.constructor) did not return within \(SourceCallBook.seconds(settings.startTimeout)) s"
        )
    }

    /// What the host did apart from its calls' lines, which `SourceCallBook` reads on the host's reader thread.
    private func handle(_ output: HostConnection.Output, from host: HostConnection) {
        guard book.read({ $0.connection === host }) else { return }
        switch output {
        case .message(.ready):
            book.change { $0.ready = true }
            for waiter in readyWaiters.values { waiter.resume() }
            readyWaiters = [:]
        case .message(.exiting(let status)):
            classExitStatus = status
        case .message:
            break
        case .printed(let line):
            let text = SecretRedactor.redact(line)
            printed.append(text)
            if printed.count > 20 { printed.removeFirst(printed.count - 20) }
            showPrinted(text)
        case .race(let race):
            hostRaced = true
            guard reportedRaces.insert(race.lines).inserted else { return }
            book.publish(
                .breach(race.breach(sources: launch.sources)),
                id: book.read { $0.currentID } ?? "")
        case .flooding:
            book.endHost(
                because:
                    "your code printed more than \(HostConnection.floodBytesPerSecond >> 20) MiB in a second"
            )
        case .overMemory(let bytes):
            book.endHost(
                because:
                    "your class's host used \(bytes >> 20) MiB of memory, over the \(settings.memoryLimit >> 20) MiB limit"
            )
        case .exited(let status):
            hostEnded(status: status)
        }
    }

    /// The class's prints in the log, at most `printsPerSecond` a second; the rest counted and said once the second is over.
    private func showPrinted(_ text: String) {
        let now = clock.now()
        let currentID = book.read { $0.currentID } ?? ""
        if now.timeIntervalSince(printWindow) >= 1 {
            if printsDropped > 0 {
                book.publish(.printed("… \(printsDropped) more lines printed in that second"), id: currentID)
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
        book.publish(.printed(text), id: currentID)
    }

    static var printsPerSecond: Int { 5 }
    private var printWindow = Date.distantPast
    private var printsShown = 0
    private var printsDropped = 0

    /// Why tokendash ended a host when the run itself ended: no event, as nothing went wrong.
    static var stoppedByTokendash: String { "tokendash stopped" }

    /// The host ended: one event says why (a crash, or the cause tokendash killed it for) and
    /// when it starts again, and whatever waited on it fails with that sentence.
    private func hostEnded(status: Int32) {
        let now = clock.now()
        let cause = book.read { $0.endedBecause }
        // A host tokendash stopped did nothing wrong: its end counts towards no backoff.
        let wait =
            cause == Self.stoppedByTokendash
            ? 0 : backoff.wait(afterRunning: hostStartedAt.map { now.timeIntervalSince($0) } ?? 0)
        restartAt = now.addingTimeInterval(wait)
        let again = "; started again at the next call after \(SourceCallBook.seconds(wait)) s"
        let reason: String
        var said: ContractBreach?
        if let cause {
            if cause == Self.stoppedByTokendash {
                reason = cause
            } else {
                reason = cause + "; its host was killed" + again
                said = ContractBreach(.providerKilled, "provider killed: " + cause + again)
            }
        } else {
            let how = Self.howItEnded(status: status, classStatus: classExitStatus, raced: hostRaced)
            let last = Self.lastWords(printed).joined(separator: " | ")
            reason = "provider crashed: your class's host \(how)" + (last.isEmpty ? "" : ": " + last)
            said = ContractBreach(.providerCrashed, reason + again)
        }
        listening = nil
        hostStartedAt = nil
        let error = FleetAuthError.other(reason)
        let currentID = book.read { $0.currentID } ?? ""
        // The host is taken for gone before its end is said, so whoever acts on the line finds it so.
        book.hostEnded(error)
        for waiter in readyWaiters.values { waiter.resume(throwing: error) }
        readyWaiters = [:]
        if let said { book.publish(.breach(said), id: currentID) }
    }

    /// ThreadSanitizer's exit status when it reported a race (`exitcode`, 66 unless set otherwise).
    static var sanitizerExitStatus: Int32 { 66 }

    /// How a host ended in words: its signal, or its exit status; where ThreadSanitizer, having
    /// reported a race, replaced the class's own `exit` status with its 66, both.
    static func howItEnded(status: Int32, classStatus: Int32?, raced: Bool) -> String {
        if status > 128 { return "died of \(signalName(status - 128))" }
        if status == sanitizerExitStatus, raced {
            let own =
                classStatus.map { "your class's own exit(\($0)) is behind it" }
                ?? "your class's own status is behind it"
            return "exited with status 66, ThreadSanitizer's after the race it reported (\(own))"
        }
        return "exited with status \(status)"
    }

    /// What a dying host said, without the stack the runtime prints after it: the trap's own
    /// message ("…/Provider.swift:8: Fatal error: Unexpectedly found nil …", or the Objective-C
    /// host's "Uncaught exception NSRangeException: …") first.
    static func lastWords(_ lines: [String]) -> [String] {
        let fatal = lines.filter {
            $0.contains("Fatal error") || $0.contains("Precondition failed") || $0.contains("Assertion failed")
                || $0.hasPrefix("Uncaught exception ")
        }
        if !fatal.isEmpty { return Array(fatal.suffix(2)) }
        let frame = #"^\s*\d+\s+\S+\s+0x[0-9a-f]+"#
        return Array(
            lines.filter {
                $0.range(of: frame, options: .regularExpression) == nil && !$0.hasPrefix("Current stack trace")
            }.suffix(3))
    }

    static func seconds(_ t: TimeInterval) -> String { SourceCallBook.seconds(t) }

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
    /// The resident memory the host may reach before it is killed.
    public var memoryLimit = HostConnection.memoryLimitBytes
    /// How the SDK calls the class, which decides the words a breach is said in.
    public var contract = SDKContract.completionHandler
    /// How often the SDK sends a location update (`--update-interval`): a call that blocks the
    /// Android Driver SDK's update thread holds back one update per interval.
    public var locationUpdateInterval: TimeInterval?
    public var providerID: String?
    /// The backend is the embedded server, whose lifetime the user chose.
    public var lifetimeChosen: Bool
    /// Tells the embedded server's session route the SDK's current ID.
    public var announce: @Sendable (String) -> Void
    /// What the backend's last answer said of its expiry (the loopback proxy reads it as it passes).
    public var backendExpiry: @Sendable () -> BackendExpiry?

    public init(
        completionTimeout: TimeInterval = 10, startTimeout: TimeInterval = 30, parallelCalls: Int = 2,
        providerID: String? = nil, lifetimeChosen: Bool = false,
        announce: @escaping @Sendable (String) -> Void = { _ in },
        backendExpiry: @escaping @Sendable () -> BackendExpiry? = { nil }
    ) {
        self.backendExpiry = backendExpiry
        self.completionTimeout = completionTimeout
        self.startTimeout = startTimeout
        self.parallelCalls = parallelCalls
        self.providerID = providerID
        self.lifetimeChosen = lifetimeChosen
        self.announce = announce
    }
}

/// How an SDK asks the class for a token: iOS's `fetchToken(with:completion:)`, which may answer
/// later, from any queue; or Android's `getToken(context)`, which returns the token (or throws) on
/// the SDK's one location-update thread.
public enum SDKContract: Sendable, Equatable {
    case completionHandler
    case synchronousReturn

    /// What the class's constructor is called, for a host that never got ready.
    var constructor: String { self == .completionHandler ? "init()" : "constructor" }
}

/// A built host and what the provider needs to read its reports.
public struct HostLaunch: Sendable {
    public var executable: String
    /// The customer's file name as the build named it: ThreadSanitizer's frames are matched to it.
    public var fileName: String
    /// The text that was built, for the names a race report gives.
    public var sourceText: String
    public var environment: [String: String]
    /// Every file of the class by the name it was built under, with its text (one for most classes).
    public var sources: [String: String]

    public init(
        executable: String, fileName: String, sourceText: String, environment: [String: String],
        sources: [String: String] = [:]
    ) {
        self.executable = executable
        self.fileName = fileName
        self.sourceText = sourceText
        self.environment = environment
        self.sources = sources.isEmpty ? [fileName: sourceText] : sources
    }
}
