/// What a command started, stopped from one place in the reverse order of its start: when a
/// later part fails to start (so nothing started before it is left running), and when the run
/// ends. Each step is told which: a recording is kept when the run completed, removed when it
/// never began.
public actor Teardown {
    public typealias Step = @Sendable (_ completed: Bool) async -> Void
    private var steps: [Step] = []

    public init() {}

    /// `step` undoes what was just started.
    public func add(_ step: @escaping Step) { steps.append(step) }

    /// Runs the steps, the last added first, each once.
    public func run(completed: Bool) async {
        while let step = steps.popLast() { await step(completed) }
    }

    /// `start`'s value, or, when it throws, every step run (not completed) before the error goes up.
    public func starting<T: Sendable>(_ start: () async throws -> T) async throws -> T {
        do { return try await start() } catch {
            await run(completed: false)
            throw error
        }
    }
}
