import Foundation
import ProviderVocabulary
import Redaction
import TokenJudging
import TokenReading

// libFuzzer entry point for JWTInspector and TokenRedactor. Not a SwiftPM target: scripts/fuzz.sh
// builds it with `swiftc -sanitize=fuzzer` against the package's modules.
//
// The input is the token, as `tokendash decode` and the providers receive it. An input that starts
// with `{` is also read as `header JSON \n claims JSON \n signature` and encoded here: through
// base64url one mutated byte garbles its neighbours, so numbers in the claims (exp, iat) would
// almost never change into other valid numbers.

/// The IDs the seed corpus's tokens are minted for, so accepted paths stay reachable.
private let fuzzIDs: [ProviderKind: String] = [
    .consumer: "trip-1", .driver: "vehicle-1", .deliveryConsumer: "tracking-1", .deliveryDriver: "delivery-vehicle-1",
]

/// Fixed so that a crash reproduces whatever the date the input is replayed on.
private let now = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let raw = String(decoding: bytes, as: UTF8.self)
    inspect(raw)
    if bytes.first == UInt8(ascii: "{") {
        let parts = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: false)
        let header = JWTInspector.base64URLEncode(Data(parts[0]))
        let claims = parts.count > 1 ? JWTInspector.base64URLEncode(Data(parts[1])) : ""
        let signature = parts.count > 2 ? String(decoding: parts[2], as: UTF8.self) : "c2lnbmF0dXJl"
        inspect("\(header).\(claims).\(signature)")
    }
    return 0
}

private func inspect(_ token: String) {
    // Redaction runs on every token shown, valid or not, and on every error message that quotes a
    // body, so it gets the raw input first.
    keep(TokenRedactor.redact(token))
    keep(TokenRedactor.redactJWTs(in: token))
    let jwt: DecodedJWT
    do {
        jwt = try JWTInspector.decode(token)
    } catch {
        keep(error.description)
        return
    }
    for kind in [ProviderKind.consumer, .driver, .deliveryConsumer, .deliveryDriver] {
        let id = fuzzIDs[kind] ?? "id-1"
        let results = TokenRules.evaluate(jwt, kind: kind, id: id, now: now, providerID: "tokendash")
        keep(results.map(\.description))
        keep(TokenResponseDecoder.error(for: results, jwt: jwt, kind: kind, id: id, now: now)?.description)
        keep(TokenRules.clock(serverDate: jwt.issuedAt ?? now, now: now, iat: jwt.claims["iat"]?.intValue).description)
    }
    keep(jwt.header.description)
    keep(jwt.claims.description)
    keep(jwt.issuedAt)
    // `lifetime` lives on FetchedToken; build one the way the decoder does after accepting a token.
    let fetched = FetchedToken(token: token, id: "trip-1", expiresAt: jwt.expiresAt ?? now, receivedAt: now, jwt: jwt)
    keep(fetched.lifetime)
    keep(fetched.expiresAt.timeIntervalSince(now))
}

/// Holds a result the optimizer would otherwise drop together with the code that computes it.
@_optimize(none) private func keep<T>(_ value: T) {}
