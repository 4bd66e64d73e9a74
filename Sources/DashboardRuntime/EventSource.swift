import Dashboard

/// Where the dashboard's events come from: the live providers, or a recorded session being
/// replayed. A source sends actions into the inbox until its task is cancelled.
public protocol EventSource: Sendable {
    func run(into inbox: ActionInbox) async
}
