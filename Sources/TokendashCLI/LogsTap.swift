import LogReading
import ProviderEvents
import ProviderVocabulary
import Recording
import RecordingFormat
import TapReading

/// `tokendash logs --tap RECORDING`: the token fetches a `tokendash tap --record` file holds (any
/// recording's `fetched` and `fetch_failed` events), as the logs' join reads them.
enum LogsTap {
    /// The recording at `path`'s fetches told to `join`; its problems as `FILE:LINE:` lines. Read
    /// a line at a time and kept as counts: a tap's recording of a day may be gigabytes.
    static func read(_ path: String, into join: inout TapJoin) throws(RecordingError) -> [String] {
        try Recording.forEachEvent(in: path) { event in
            if let fetch = fetch(event) { join.add(fetch) }
        }
    }

    static func fetch(_ event: ProviderEvent) -> TapFetch? {
        guard let exchange = TappedExchange(outcome: event), let provider = exchange.kind,
            let kind = LoggedIDKind(tokenFor: provider), let id = exchange.id
        else { return nil }
        return TapFetch(
            time: LogInstant(seconds: exchange.time.timeIntervalSince1970), id: LoggedID(kind, id),
            outcome: outcome(of: exchange))
    }

    /// A fetch's outcome for the join: a token tokendash's rules refuse is flawed, a failed fetch
    /// (no token) failed, anything else good. Read from the error's sentence, which is all a
    /// recording keeps of it (`RecordedError`).
    static func outcome(of exchange: TappedExchange) -> TapFetch.Outcome {
        if let failure = exchange.failure {
            return TapFetch.outcome(ofFailure: failure.description, rejected: failure.isTokenRejection)
        }
        if let token = exchange.token, let failing = token.findings.failures.first {
            return .flawed("fails rule \(failing.rule)")
        }
        return .good
    }
}
