/// What a command started, stopped from one place in the reverse order of its start: when a
/// later part fails to start (so nothing started before it is left running), and when the run
/// ends. Each step is told which: a recording is kept when the run completed, removed when it
/// never began.
///
/// Kept rather than swift-service-lifecycle's `ServiceGroup`: a group runs long-lived `run()`
/// methods side by side and cancels them together, in no set order before 2.x's ordered shutdown,
/// while tokendash's parts are started objects (a listener, a recording, a JVM host) whose stop
/// needs their start's value and must know whether the run completed. One actor serves a failed
/// start and a finished run alike.
public actor Teardown {
    public typealias Step = @Sendable (_ completed: Bool) async -> Void
    private var steps: [(part: String, step: Step)] = []
    /// Told each part's name as its stop begins: a command's stop order, for its tests. A session's
    /// own parts are told to the same observer, inside the session's step.
    public nonisolated let observer: @Sendable (_ part: String) -> Void

    public init(observer: @escaping @Sendable (_ part: String) -> Void = { _ in }) {
        self.observer = observer
    }

    /// `step` undoes `part`, which was just started.
    public func add(_ part: String, _ step: @escaping Step) { steps.append((part, step)) }

    /// Runs the steps, the last added first, each once.
    public func run(completed: Bool) async {
        while let (part, step) = steps.popLast() {
            observer(part)
            await step(completed)
        }
    }

    /// `start`'s value, or, when it throws, every step run (not completed) before the error goes up.
    public func starting<T: Sendable>(_ start: () async throws -> T) async throws -> T {
        do { return try await start() } catch {
            await run(completed: false)
            throw error
        }
    }
}
