import NIOCore

/// One upstream connection: its channel, and the handler that hands its answers to the client
/// connection it serves for one exchange (none while it waits in the pool).
final class UpstreamConnection {
    let channel: any Channel
    let answers: UpstreamAnswerHandler
    /// It served an exchange before: the upstream may have closed it while it waited.
    var reused = false

    init(channel: any Channel, answers: UpstreamAnswerHandler) {
        self.channel = channel
        self.answers = answers
    }
}
