import Foundation
import ProviderVocabulary
import Redaction
import TapForwarding
import TokenJudging
import TokenReading

/// Reads one forwarded exchange as a provider would have read its answer: the route says whose
/// token it is, `TokenResponseDecoder` finds it (today's shape detection) and `TokenRules` judge
/// it, the signature against `--jwks` when given. Whatever it meets, it returns a reading: the
/// forwarding is over by the time it runs, so nothing here can change what the client got.
public struct ExchangeReader: Sendable {
    public let routes: TapRoutes
    public let verifier: (any SignatureVerifier)?
    /// The Google Cloud project the tokens' issuer must belong to (`--provider-id`); nil accepts any.
    public let providerID: String?

    /// Each kind's decoder, made once: the reader meets thousands of answers a second.
    private let decoders: [ProviderKind: TokenResponseDecoder]

    public init(routes: TapRoutes = TapRoutes(), verifier: (any SignatureVerifier)? = nil, providerID: String? = nil) {
        self.routes = routes
        self.verifier = verifier
        self.providerID = providerID
        // One memo for every kind: a backend's trip and vehicle tokens share their header and issuer.
        let memo = TokenRules.Memo()
        decoders = Dictionary(
            uniqueKeysWithValues: ProviderKind.allCases.map {
                ($0, Self.decoder($0, providerID: providerID, memo: memo))
            })
    }

    /// How a tapped answer of `kind` is decoded: the kind's default route, the issuer's project.
    private static func decoder(_ kind: ProviderKind, providerID: String?, memo: TokenRules.Memo? = nil)
        -> TokenResponseDecoder
    {
        TokenResponseDecoder(
            endpoint: TokenEndpoint(kind: kind, urlTemplate: kind.defaultRoutePath, providerID: providerID), memo: memo)
    }

    /// `now` is when the answer ended: the instant its token is judged at.
    public func read(_ exchange: TapExchange, now: Date) async -> TappedExchange {
        let matched = routes.match(Substring(exchange.target))
        var reading = TappedExchange(
            time: exchange.time, kind: matched?.kind, id: matched?.id, method: exchange.method,
            status: exchange.status, latency: exchange.latency, verdict: .unreadable)
        switch exchange.outcome {
        case .noAnswer(let reason):
            reading.verdict = .unreachable
            reading.error = SecretRedactor.redact(reason)
            reading.failure = .unreachable(url: "upstream", reason: reading.error ?? reason)
            return reading
        case .cutShort(let reason):
            reading.error = "unreadable: " + SecretRedactor.redact(reason)
            return reading
        case .answered:
            break
        }
        guard let (kind, id) = matched else {
            reading.verdict = (200..<300).contains(exchange.status) ? .ok : .httpError
            return reading
        }
        if let encoding = exchange.headers["content-encoding"], !encoding.isEmpty, encoding.lowercased() != "identity" {
            reading.error = "unreadable: a \(encoding)-encoded answer (forwarded as it came)"
            return reading
        }
        if exchange.bodyTruncated {
            reading.error = "unreadable: an answer over \(TapExchange.bodyCap / 1024) KiB (forwarded whole)"
            return reading
        }
        let decoder = decoders[kind] ?? Self.decoder(kind, providerID: providerID)
        let response = TransportResponse(status: exchange.status, body: exchange.body, headers: exchange.headers)
        do {
            // The request arrived at `time`: the backend's Date header was written after it.
            var token = try decoder.decode(response, id: id, now: now, sentAt: exchange.time)
            let signature = await verifier?.verify(token.token, jwt: token.jwt) ?? .signatureNotConfigured
            if signature.level == .fail { throw FleetAuthError.rejected([signature]) }
            token.findings.append(signature)
            reading.verdict = token.findings.worst >= .warn ? .warn : .ok
            reading.token = consume token
        } catch {
            reading.failure = error as? FleetAuthError ?? .other("\(error)")
            reading.error = reading.failure?.description
            switch reading.failure {
            case .httpStatus?: reading.verdict = .httpError
            case let failure? where failure.isTokenRejection:
                reading.verdict = .fail
                // Refused, but still a token the app got: its fingerprint counts it among the ID's tokens.
                if let text = decoder.tokenText(response) { reading.refusedFingerprint = TokenFingerprint.of(text) }
            default: reading.verdict = .unreadable
            }
        }
        return reading
    }
}
