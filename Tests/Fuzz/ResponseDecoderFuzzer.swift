import FleetEngineAPI
import Foundation
import ProviderVocabulary
import Redaction
import TokenJudging
import TokenReading

// libFuzzer entry point for TokenResponseDecoder. Not a SwiftPM target: scripts/fuzz.sh builds it
// with `swiftc -sanitize=fuzzer` against the package's modules.
//
// Input: byte 0 picks the HTTP status, byte 1 the endpoint configuration, the rest is the body.
// The bits are laid out so that the seed corpus can use readable characters: the low nibble of
// byte 0 indexes `statuses` ('0'...'9'), and '@'...'O' are the same statuses with header lines
// in front of the body (see `headers(_:)`); byte 1 '0'...'?' are the plain configurations and
// 'p'...'\x7f' the same with a template body (see `body(_:)`).

/// Mostly 2xx, because everything past the status check lives there; the rest probe the edges
/// (429 and 503 are the statuses whose Retry-After is read).
private let statuses = [200, 200, 200, 429, 201, 299, 300, 199, 404, 500, 0, -1, Int.min, Int.max, 204, 503]

/// The IDs the seed corpus's tokens are minted for, so accepted paths stay reachable.
private let fuzzIDs: [ProviderKind: String] = [
    .consumer: "trip-1", .driver: "vehicle-1", .deliveryConsumer: "tracking-1", .deliveryDriver: "delivery-vehicle-1",
]

/// Fixed so that a crash reproduces whatever the date the input is replayed on.
private let now = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard bytes.count >= 2 else { return 0 }
    let status = statuses[Int(bytes[0] & 0x0F)]
    let config = bytes[1]
    // Bits 0-1 and 4: expiry mode; 2 and 5: provider kind; 3: the custom key names `--token-key`
    // allows (else the shape is detected); 6: template.
    let mode = ExpiryMode.allCases[(Int(config & 0b11) + (config & 0b1_0000 == 0 ? 0 : 4)) % ExpiryMode.allCases.count]
    let kinds: [ProviderKind] = [.consumer, .driver, .deliveryConsumer, .deliveryDriver]
    let kind = kinds[(config & 0b100 == 0 ? 0 : 1) + (config & 0b10_0000 == 0 ? 0 : 2)]
    var endpoint = TokenEndpoint.sampleBackend(kind, base: "http://fuzz")
    endpoint.expiryMode = mode
    if config & 0b1000 != 0 {
        endpoint.tokenKey = "token"
        endpoint.expiryKey = "expiresAt"
    }
    let id = fuzzIDs[kind] ?? "id-1"
    var rest = bytes[2...]
    var fields: [String: String] = [:]
    if bytes[0] & 0b100_0000 != 0 { (fields, rest) = headers(rest) }
    let response = TransportResponse(
        status: status, body: config & 0b100_0000 == 0 ? Data(rest) : body(rest), headers: fields)

    do {
        let token = try TokenResponseDecoder(endpoint: endpoint).decode(response, id: id, now: now)
        // Everything a pane or `watch` derives from an accepted token must not trap either.
        keep(token.lifetime)
        keep(token.expiresAt.timeIntervalSince(now))
        keep(token.jwt.claims.description)
        keep(TokenRedactor.redact(token.token))
        keep(token.warnings.joined(separator: "; "))
        keep(token.shape)
        keep(token.fingerprint)
    } catch {
        // A rejection is the expected outcome for most inputs; its sentence is what the user sees.
        keep(error.description)
    }
    // The same bytes as Fleet Engine's answer to an SDK's call: Google's error format or not.
    let answer = FleetEngineAnswer.reading(
        response, method: FleetEngineMethod.allCases[Int(bytes[1]) % FleetEngineMethod.allCases.count],
        resource: "providers/p/vehicles/\(id)", latency: 0, fingerprint: "", rules: .ok)
    keep(answer.summary)
    keep(answer.disagreement)
    return 0
}

/// `Name: value` lines up to the first empty line, as on the wire; the rest is the body. Retry-After
/// and Content-Type change how a refusal is worded, so they need to reach the decoder too.
private func headers(_ input: Slice<UnsafeRawBufferPointer>) -> ([String: String], Slice<UnsafeRawBufferPointer>) {
    let newline = UInt8(ascii: "\n")
    guard
        let end = input.indices.first(where: {
            input[$0] == newline && $0 + 1 < input.endIndex && input[$0 + 1] == newline
        })
    else { return ([:], input) }
    var fields: [String: String] = [:]
    for line in String(decoding: input[..<end], as: UTF8.self).split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(
            in: .whitespacesAndNewlines)
    }
    return (fields, input[(end + 2)...])
}

/// A template is `body \n header JSON \n claims JSON`; each `$JWT` in the body becomes those two
/// parts base64url-encoded plus a dummy signature. Without it the claims exist only as base64url,
/// where a mutation garbles neighbouring bytes and exp/iat would hardly ever meet the expiry value.
private func body(_ template: Slice<UnsafeRawBufferPointer>) -> Data {
    let parts = template.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3 else { return Data(template) }
    let jwt =
        JWTInspector.base64URLEncode(Data(parts[1])) + "." + JWTInspector.base64URLEncode(Data(parts[2]))
        + ".c2lnbmF0dXJl"
    return Data(String(decoding: parts[0], as: UTF8.self).replacingOccurrences(of: "$JWT", with: jwt).utf8)
}

/// Holds a result the optimizer would otherwise drop together with the code that computes it.
@_optimize(none) private func keep<T>(_ value: T) {}
