import Foundation
import JSONValues

/// How a backend's answer carries the token and its expiry: configured by `--token-key` /
/// `--expiry-key`, or recognised among the shapes token backends commonly send.
public struct ResponseShape: Sendable, Equatable, CustomStringConvertible {
    /// The key path of the token; nil when the whole body is the token.
    public var tokenKey: String?
    /// The key path of the expiry; nil when only the JWT's `exp` says when it expires.
    public var expiryKey: String?
    /// How to read the expiry when `--expiry` is `auto`: `auto` itself where magnitude tells
    /// (epoch ms), `relative` where a small epoch would be misread (`expires_in`).
    public var expiryMode: ExpiryMode
    /// What a person is told: which shape was found.
    public var name: String

    public var description: String { name }

    /// The key of the creation time, where a sample backend sends one.
    public var creationKey: String?

    /// Google's on-demand sample backend: `{jwt, creationTimestamp, expirationTimestamp}` in epoch ms.
    public static let onDemandSample = ResponseShape(
        tokenKey: "jwt", expiryKey: "expirationTimestamp", expiryMode: .auto,
        name: "on-demand sample {jwt, expirationTimestamp}",
        creationKey: "creationTimestamp")
    /// Google's last-mile sample backend: `{token, creation_timestamp_ms, expiration_timestamp_ms}`.
    public static let lastMileSample = ResponseShape(
        tokenKey: "token", expiryKey: "expiration_timestamp_ms", expiryMode: .auto,
        name: "last-mile sample {token, expiration_timestamp_ms}",
        creationKey: "creation_timestamp_ms")

    /// The shapes recognised without flags, most specific first.
    package static let known: [ResponseShape] = [
        onDemandSample,
        lastMileSample,
        ResponseShape(
            tokenKey: "access_token", expiryKey: "expires_in", expiryMode: .relative,
            name: "{access_token, expires_in s}"),
        ResponseShape(
            tokenKey: "token", expiryKey: "expires_in", expiryMode: .relative,
            name: "{token, expires_in s}"),
    ]
    /// Keys a token is looked for under when the shape is not one of `known`.
    package static let tokenKeys = ["jwt", "token", "access_token"]

    package static let bareJWT = ResponseShape(
        tokenKey: nil, expiryKey: nil, expiryMode: .jwt, name: "a bare JWT (text body), expiry from exp")

    /// The shape of `fields` given what was configured; nil when no token key is found.
    package static func detect(_ fields: JSONObject, tokenKey: String?, expiryKey: String?) -> ResponseShape? {
        if let tokenKey, let expiryKey {
            return ResponseShape(
                tokenKey: tokenKey, expiryKey: expiryKey, expiryMode: .auto,
                name: "{\(tokenKey), \(expiryKey)} as configured")
        }
        // Lazily: this runs for every answer the tap reads, and a filtered copy of `known` each time was an allocation.
        if let match = known.lazy.filter({ shape in
            (tokenKey == nil || tokenKey == shape.tokenKey) && (expiryKey == nil || expiryKey == shape.expiryKey)
        }).first(where: { shape in
            shape.tokenKey.map { lookup($0, in: fields) != nil } == true
                && shape.expiryKey.map { lookup($0, in: fields) != nil } == true
        }) {
            return match
        }
        guard let key = tokenKey ?? tokenKeys.first(where: { fields[$0] != nil }), lookup(key, in: fields) != nil else {
            return nil
        }
        if let expiryKey {
            return ResponseShape(tokenKey: key, expiryKey: expiryKey, expiryMode: .auto, name: "{\(key), \(expiryKey)}")
        }
        return ResponseShape(
            tokenKey: key, expiryKey: nil, expiryMode: .jwt, name: "token only {\(key)}, expiry from exp")
    }

    /// The token in a backend's JSON answer, by the shapes recognised without flags (a token
    /// pasted into `decode` as the whole answer); nil when none matches.
    public static func token(inAnswer json: JSONValue) -> String? {
        guard case .object(let fields) = json, let key = detect(fields, tokenKey: nil, expiryKey: nil)?.tokenKey else {
            return nil
        }
        return lookup(key, in: fields)?.stringValue
    }

    /// A value by key, or by dotted path (`data.token`) when no key has the dots in its name.
    package static func lookup(_ path: String, in fields: JSONObject) -> JSONValue? {
        if let value = fields[path] { return value }
        let steps = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard steps.count > 1, let first = steps.first, var value = fields[first] else { return nil }
        for step in steps.dropFirst() {
            guard let next = value[step] else { return nil }
            value = next
        }
        return value
    }
}
