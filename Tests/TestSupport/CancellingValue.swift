/// Swift Testing's time limit cancels the test's own task, never the unstructured tasks the test
/// made: a test awaiting one that waits forever (a reader of a stream never finished, a call
/// parked at a fake backend) outlived its limit, and one full run hung so. Awaiting through these
/// passes the test's cancellation on, so the limit ends the wait with the test's name.
extension Task where Failure == Never {
    public var cancellingValue: Success {
        get async {
            await withTaskCancellationHandler {
                await value
            } onCancel: {
                cancel()
            }
        }
    }
}

extension Task where Failure == any Error {
    public var cancellingValue: Success {
        get async throws {
            try await withTaskCancellationHandler {
                try await value
            } onCancel: {
                cancel()
            }
        }
    }
}
