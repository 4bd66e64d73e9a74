import Signals

extension SignalWatcher {
    /// Returns at the first signal watched, or after `duration` seconds when one is given: how
    /// `watch` and `tap` end a headless run.
    package func end(after duration: Double?) async {
        guard let duration else {
            _ = await next()
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: .seconds(duration)) }
            group.addTask { _ = await self.next() }
            await group.next()
            group.cancelAll()
        }
    }
}
