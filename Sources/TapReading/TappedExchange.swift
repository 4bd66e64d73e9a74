import Foundation
import ProviderEvents
import ProviderVocabulary

/// One exchange as the tap read it: whose token it was, the verdict, and the token itself when
/// the answer held one. What the watch lines, the per-ID table, the metrics and the provider
/// events (dashboard and recordings) are made from.
public struct TappedExchange: Sendable {
    public var time: Date
    /// The kind and ID the request asked for; nil for a request no route matches.
    public var kind: ProviderKind?
    public var id: String?
    public var method: String
    public var status: Int
    public var latency: TimeInterval
    public var verdict: TapVerdict
    /// The token the answer held, judged; nil when there was none to read.
    public var token: FetchedToken?
    /// Why there is no good token, redacted: the decoder's sentence, or the forwarder's reason.
    public var error: String?
    /// The decoder's error when it had one, so the dashboard and recordings get today's failure.
    public var failure: FleetAuthError?

    /// A refused token's fingerprint: the app got it all the same, so it counts among the ID's tokens.
    public var refusedFingerprint: String?

    public var fingerprint: String? { token?.fingerprint ?? refusedFingerprint }
    /// The ID's fetches per token lifetime with this one counted (`TapLedger`); nil before a lifetime is known.
    public var fetchesPerToken: Double?

    public init(
        time: Date, kind: ProviderKind?, id: String?, method: String, status: Int, latency: TimeInterval,
        verdict: TapVerdict, token: FetchedToken? = nil, error: String? = nil, failure: FleetAuthError? = nil
    ) {
        self.time = time
        self.kind = kind
        self.id = id
        self.method = method
        self.status = status
        self.latency = latency
        self.verdict = verdict
        self.token = token
        self.error = error
        self.failure = failure
    }

    /// The provider events a simulated provider would have sent for this fetch: what the dashboard's
    /// fleet and panes, `--record` and the replay already read. None for a request no route matches.
    public var providerEvents: [ProviderEvent] {
        guard let kind, let id else { return [] }
        let start = time
        let end = time.addingTimeInterval(latency)
        let outcome: ProviderEvent.Kind
        if let token, verdict != .fail {
            outcome = .fetched(token, latency: latency)
        } else {
            outcome = .fetchFailed(failure ?? .other(error ?? verdict.rawValue), latency: latency)
        }
        return [
            ProviderEvent(time: start, provider: kind, id: id, kind: .fetchStarted(reason: .noToken)),
            ProviderEvent(time: end, provider: kind, id: id, kind: outcome, refusedFingerprint: refusedFingerprint),
        ]
    }
}
