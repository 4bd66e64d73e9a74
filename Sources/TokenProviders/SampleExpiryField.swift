import Foundation
import JSONValues
import ProviderVocabulary
import TokenJudging
import TokenReading

/// The expiration number as Google's samples read it: a JSON number under the response's expiry
/// key (Swift: `fetchData[tokenExpirationKey] as? Double`; Objective-C: `[expirationData
/// isKindOfClass:[NSNumber class]]`). A string, an ISO-8601 time or no key at all is no number.
///
/// The samples leave the keys to the reader ("Replace the following key values with the
/// appropriate keys based on your server's expected response"), and each reads the number in its
/// own way: the Swift sample as an epoch in seconds, the Objective-C sample as seconds from now.
/// A backend written for either sends its number at the time it mints the token. tokendash's
/// backends send other units (the embedded server epoch milliseconds), so the number is read with
/// tokendash's own unit rules (`TokenResponseDecoder.interpret`) at the token's `iat`, and each
/// port then does the sample's arithmetic on what a backend written for it would have sent.
struct SampleExpiryField: Sendable {
    let raw: Double
    let mode: ExpiryMode

    /// The number in `body`, found as the decoder finds the response's shape; nil when there is
    /// none, or when the endpoint is told to read only the JWT (`--expiry jwt`: no key to replace).
    init?(_ body: Data, endpoint: TokenEndpoint) {
        guard endpoint.expiryMode != .jwt, case .object(let fields)? = try? JSONValue.decode(body),
            let shape = ResponseShape.detect(fields, tokenKey: endpoint.tokenKey, expiryKey: endpoint.expiryKey),
            let key = shape.expiryKey, let raw = ResponseShape.lookup(key, in: fields)?.numberValue
        else { return nil }
        self.raw = raw
        self.mode = endpoint.expiryMode == .auto ? shape.expiryMode : endpoint.expiryMode
    }

    /// The instant the number names: what a backend written for the Swift sample sends.
    func instant(mintedAt: Date) -> Date { TokenResponseDecoder.interpret(raw, mode: mode, now: mintedAt) }

    /// The seconds from minting the number names: what a backend written for the Objective-C sample sends.
    func seconds(mintedAt: Date) -> TimeInterval { instant(mintedAt: mintedAt).timeIntervalSince(mintedAt) }
}
