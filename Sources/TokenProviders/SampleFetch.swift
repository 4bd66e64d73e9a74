import Foundation
import ProviderVocabulary
import TokenJudging

/// The request both sample ports make where the samples call `URLSession`: through tokendash's
/// `TokenTransport` and `TokenResponseDecoder`, so they read the same backends (the embedded
/// server included) and publish the same tokens. One request per call: nothing is shared.
struct SampleFetch: Sendable {
    /// A token accepted from the backend, with the sample's view of the response's expiry.
    struct Answer: Sendable {
        var token: FetchedToken
        var expiry: SampleExpiryField?
        /// When the answer was handled: the sample's `[NSDate date]` in the completion handler.
        var answeredAt: Date
        /// When the backend minted the token (`iat`), else when it was answered.
        var mintedAt: Date { token.jwt.issuedAt ?? answeredAt }
    }

    /// The samples check no signature; said on the token, where tokendash's core names its key set.
    static let signatureNotChecked = RuleResult(
        .signature, .note, "not checked: Google's sample does not verify tokens")

    let endpoint: TokenEndpoint
    let transport: any TokenTransport
    let clock: any ProviderClock

    /// The answer, or why there is none; with the token text the rules refused, if that was why
    /// (the SDK is handed no such token, but a simulated one shows Fleet Engine what it would say).
    func run(id: String) async -> (result: Result<Answer, FleetAuthError>, refused: String?) {
        var received: TransportResponse?
        do {
            let url: URL = try endpoint.url(for: id)
            let request = TransportRequest(
                url: url, headers: endpoint.headers, timeout: endpoint.timeout,
                maxBodyBytes: endpoint.maxBodyBytes)
            let sent = clock.now()
            let response: TransportResponse = try await transport.send(request)
            received = response
            return (.success(try answer(response, id: id, sent: sent)), nil)
        } catch {
            let failure = error as? FleetAuthError ?? .other("\(error)")
            let refused = failure.isTokenRejection ? received.flatMap(decoder.tokenText) : nil
            return (.failure(failure), refused)
        }
    }

    private var decoder: TokenResponseDecoder { TokenResponseDecoder(endpoint: endpoint) }

    private func answer(_ response: TransportResponse, id: String, sent: Date) throws(FleetAuthError) -> Answer {
        let now = clock.now()
        var token = try decoder.decode(response, id: id, now: now, sentAt: sent)
        token.findings.append(Self.signatureNotChecked)
        // A fleet's tokens say the same things: one shared copy of the words, as tokendash's core keeps them.
        token.findings = FindingsPool.shared.intern(token.findings)
        return Answer(token: token, expiry: SampleExpiryField(response.body, endpoint: endpoint), answeredAt: now)
    }
}
