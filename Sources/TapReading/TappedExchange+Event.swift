import Foundation
import ProviderEvents
import ProviderVocabulary

extension TappedExchange {
    /// The reading a `fetched` or `fetch_failed` event of the tap's stands for (`providerEvents`
    /// read back): what a replay, which has only the events, counts per ID, a refused token's
    /// fingerprint included. The HTTP status is not in the events; nil for any other event.
    public init?(outcome event: ProviderEvent) {
        let verdict: TapVerdict
        var token: FetchedToken?
        var failure: FleetAuthError?
        let latency: TimeInterval
        switch event.kind {
        case .fetched(let fetched, let took):
            token = fetched
            latency = took
            verdict = fetched.findings.worst >= .warn ? .warn : .ok
        case .fetchFailed(let error, let took):
            failure = error
            latency = took
            verdict =
                switch error {
                case .unreachable, .timeout: .unreachable
                case .httpStatus: .httpError
                case let error where error.isTokenRejection: .fail
                default: .unreadable
                }
        default:
            return nil
        }
        self.init(
            time: event.time.addingTimeInterval(-latency), kind: event.provider, id: event.id, method: "GET", status: 0,
            latency: latency, verdict: verdict, token: token, error: failure?.description, failure: failure)
        if token == nil { refusedFingerprint = event.refusedFingerprint }
    }
}
