import Dashboard
import DashboardRuntime
import Testing

@Suite(.timeLimit(.minutes(15))) struct ActionInboxTests {
    /// A UI that stalls must not grow memory without bound, and must not hide that it fell behind.
    @Test func aFullInboxCountsWhatItDropsAndSaysSo() {
        let inbox = ActionInbox()
        for i in 0..<(ActionInbox.limit + 3) { inbox.send(.tick(.init(timeIntervalSince1970: Double(i)))) }
        let first = inbox.drain()
        #expect(first.count == ActionInbox.limit + 1)
        #expect(first.last == .message("3 updates dropped: the screen fell 100,000 behind"))
        #expect(first.dropLast().allSatisfy { if case .tick = $0 { true } else { false } })

        inbox.send(.message(nil))
        #expect(inbox.drain() == [.message(nil)], "the count starts again after a drain")
    }
}
