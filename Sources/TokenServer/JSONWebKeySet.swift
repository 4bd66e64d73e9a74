import Foundation
import JWTKit
import ProviderVocabulary
import TokenReading

/// A JWKS document: what verifiers fetch to check the server's signatures.
public struct JSONWebKeySet: Sendable, Codable, Equatable {
    public var keys: [RSAPublicJWK]
}

/// An RSA public key as a JWK (RFC 7517), with the fields verifiers look for.
public struct RSAPublicJWK: Sendable, Codable, Equatable {
    public var kty = "RSA"
    public var n: String
    public var e: String
    public var kid: String
    public var alg = "RS256"
    public var use = "sig"

    public init(_ key: JWTKit.Insecure.RSA.PublicKey, keyID: String) throws {
        let primitives = try key.getKeyPrimitives()
        n = JWTInspector.base64URLEncode(primitives.modulus)
        e = JWTInspector.base64URLEncode(primitives.publicExponent)
        kid = keyID
    }
}
