import Foundation
import JWTKit
import ProviderVocabulary
import TestSupport
import Testing
import TokenJudging
import TokenReading
import TokenSignatures

@testable import TokenServer

/// Tokens shaped byte for byte as Google's own tools mint them, signed with real RSA keys, each
/// judged line by line. Fleet Engine accepts every one of these, so none may fail a rule: this is
/// the corpus that caught tokendash refusing java-fleetengine-auth's kid-less tokens.
///
/// Where each shape comes from:
/// - java-fleetengine-auth (github.com/googlemaps/java-fleetengine-auth, `token/factory/signer/`):
///   ImpersonatedSigner and DefaultServiceAccountSigner call auth0 java-jwt 3.10.2's `JWT.create()`
///   with iss, sub, aud, exp, iat and `authorization`, and sign through IAM signBlob with an
///   `Algorithm` that has no signing key ID, so the header has no kid. LocalSigner adds
///   `withHeader({"kid": private_key_id})`. java-jwt keeps header and claims in `HashMap`s that
///   Jackson writes compactly in the map's order: `{"typ","alg"}` / `{"kid","typ","alg"}`, and
///   `authorization, sub, aud, iss, exp, iat` (checked with Java 17's HashMap). Times are whole
///   seconds; a one-element audience is written as a string (java-jwt's PayloadSerializer). Every
///   token lives 60 minutes (FleetEngineTokenFactory.TOKEN_EXPIRATION); the claims per type are
///   the `*Claims` classes' maps, in their ImmutableMap order.
/// - IAM signJwt (`gcloud iam service-accounts sign-jwt claims.json out.jwt`): "the automatically
///   generated header; the client-supplied payload" (IAM Credentials API reference); the header
///   names the Google-managed key that signed it.
/// - Python google-auth `google.auth.jwt.encode(signer, payload)`: `json.dumps` with its default
///   separators, header `{"typ": "JWT", "alg": "RS256", "kid": signer.key_id}`.
@Suite(.timeLimit(.minutes(15))) struct GoogleTokenCorpusTests {
    static let account = "fleet-minter@my-project.iam.gserviceaccount.com"
    static let issuedAt = 1_790_000_000
    static let now = Date(timeIntervalSince1970: TimeInterval(issuedAt + 10))
    /// The service-account key file's `private_key_id` (LocalSigner, google-auth).
    static let fileKid = "3f1c9e0d5b7a24c68e1f0a9b7c5d3e2f1a0b9c8d"
    /// A Google-managed key of the same account (IAM signBlob and signJwt sign with these).
    static let managedKid = "8a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b"
    static let spareKid = "0c0d0e0f1a1b1c1d1e1f2a2b2c2d2e2f3a3b3c3d"

    /// The account's three keys; the key set lists the spare first, so a kid-less token must be
    /// tried past a key that does not verify it.
    static let keys: (file: SigningKey, managed: SigningKey, spare: SigningKey) = {
        func key(_ kid: String) -> SigningKey {
            do {
                return SigningKey(privateKey: try SigningKey.generate().privateKey, keyID: kid, accountEmail: nil)
            } catch {
                fatalError("cannot generate a test key: \(error)")
            }
        }
        return (key(fileKid), key(managedKid), key(spareKid))
    }()

    enum Tool: String, CaseIterable {
        case impersonatedSigner = "java-fleetengine-auth ImpersonatedSigner"
        case defaultServiceAccountSigner = "java-fleetengine-auth DefaultServiceAccountSigner"
        case localSigner = "java-fleetengine-auth LocalSigner"
        case iamSignJwt = "IAM signJwt (gcloud iam service-accounts sign-jwt)"
        case googleAuthPython = "Python google-auth jwt.encode"

        var key: SigningKey {
            switch self {
            case .impersonatedSigner, .defaultServiceAccountSigner, .iamSignJwt: GoogleTokenCorpusTests.keys.managed
            case .localSigner, .googleAuthPython: GoogleTokenCorpusTests.keys.file
            }
        }

        var header: String {
            switch self {
            case .impersonatedSigner, .defaultServiceAccountSigner: #"{"typ":"JWT","alg":"RS256"}"#
            case .localSigner: #"{"kid":"\#(fileKid)","typ":"JWT","alg":"RS256"}"#
            case .iamSignJwt: #"{"alg":"RS256","kid":"\#(managedKid)","typ":"JWT"}"#
            case .googleAuthPython: #"{"typ": "JWT", "alg": "RS256", "kid": "\#(fileKid)"}"#
            }
        }

        func payload(_ authorization: String) -> String {
            let (iss, aud, iat, exp) = (account, TokenRules.fleetEngineAudience, issuedAt, issuedAt + 3600)
            switch self {
            case .impersonatedSigner, .defaultServiceAccountSigner, .localSigner:
                return
                    #"{"authorization":\#(authorization),"sub":"\#(iss)","aud":"\#(aud)","iss":"\#(iss)","exp":\#(exp),"iat":\#(iat)}"#
            case .iamSignJwt:
                // The claim set file as a person writes it, sent as it is.
                return
                    "{\n  \"iss\": \"\(iss)\",\n  \"sub\": \"\(iss)\",\n  \"aud\": \"\(aud)\",\n  \"iat\": \(iat),\n  \"exp\": \(exp),\n  \"authorization\": \(authorization)\n}\n"
            case .googleAuthPython:
                let spaced = authorization.replacingOccurrences(of: "\":", with: "\": ").replacingOccurrences(
                    of: ",\"", with: ", \"")
                return
                    #"{"iss": "\#(iss)", "sub": "\#(iss)", "aud": "\#(aud)", "iat": \#(iat), "exp": \#(exp), "authorization": \#(spaced)}"#
            }
        }

        /// The rule lines every token of this tool gets before `authorization`.
        var commonLines: [String] {
            let kid =
                switch self {
                case .impersonatedSigner, .defaultServiceAccountSigner:
                    "· kid: no kid: the signature is checked against every key of the issuer's key set; java-fleetengine-auth's impersonating signers mint this way"
                case .localSigner, .googleAuthPython: "✓ kid: \(fileKid)"
                case .iamSignJwt: "✓ kid: \(managedKid)"
                }
            return [
                "✓ alg: RS256", "✓ typ: JWT", kid, "✓ iss/sub: \(account) (project my-project)",
                "✓ aud: https://fleetengine.googleapis.com/", "✓ iat: 10 s ago", "✓ exp: 3590 s left",
                "✓ lifetime: 3600 s",
            ]
        }

        func signatureLine(keySet path: String) -> String {
            switch self {
            case .impersonatedSigner, .defaultServiceAccountSigner:
                "✓ signature: RS256 verified with key \(managedKid) from \(path) (no kid: the set's 3 keys tried in turn)"
            case .localSigner, .googleAuthPython: "✓ signature: RS256 verified with key \(fileKid) from \(path)"
            case .iamSignJwt: "✓ signature: RS256 verified with key \(managedKid) from \(path)"
            }
        }
    }

    /// java-fleetengine-auth's token types (`FleetEngineTokenFactory`), with the `authorization`
    /// map each writes and the line tokendash gives it. Wildcards are Fleet Engine's own (server
    /// and fleet-reader tokens); a warning says they do not belong on a device.
    struct TokenType: Sendable {
        var name: String
        var authorization: String
        var line: String
    }

    static let types: [TokenType] = [
        TokenType(name: "consumer", authorization: #"{"tripid":"trip-42"}"#, line: "✓ authorization: tripid trip-42"),
        TokenType(
            name: "driver", authorization: #"{"vehicleid":"vehicle-7"}"#, line: "✓ authorization: vehicleid vehicle-7"),
        TokenType(
            name: "server", authorization: #"{"tripid":"*","vehicleid":"*"}"#,
            line: "! authorization: tripid is \"*\": covers every trip, too broad for a device"),
        TokenType(
            name: "fleet reader",
            authorization: #"{"tripid":"*","taskid":"*","trackingid":"*","vehicleid":"*","deliveryvehicleid":"*"}"#,
            line: "! authorization: tripid is \"*\": covers every trip, too broad for a device"),
        TokenType(
            name: "delivery consumer (tracking)", authorization: #"{"trackingid":"tracking-9"}"#,
            line: "✓ authorization: trackingid tracking-9"),
        TokenType(
            name: "delivery consumer (task)", authorization: #"{"taskid":"task-3"}"#,
            line: "✓ authorization: taskid task-3"),
        TokenType(
            name: "untrusted delivery driver", authorization: #"{"deliveryvehicleid":"dv-5"}"#,
            line: "✓ authorization: deliveryvehicleid dv-5"),
        TokenType(
            name: "trusted delivery driver", authorization: #"{"deliveryvehicleid":"dv-5"}"#,
            line: "✓ authorization: deliveryvehicleid dv-5"),
        TokenType(
            name: "trusted delivery driver with a task",
            authorization: #"{"deliveryvehicleid":"dv-5","taskid":"task-3"}"#,
            line: "✓ authorization: deliveryvehicleid dv-5"),
        TokenType(
            name: "delivery server", authorization: #"{"taskid":"*","trackingid":"*","deliveryvehicleid":"*"}"#,
            line: "! authorization: trackingid is \"*\": covers every tracking, too broad for a device"),
        TokenType(
            name: "delivery fleet reader", authorization: #"{"taskid":"*","trackingid":"*","deliveryvehicleid":"*"}"#,
            line: "! authorization: trackingid is \"*\": covers every tracking, too broad for a device"),
    ]

    /// `header.payload` as the tool writes them, signed with its key through jwt-kit's RS256.
    static func mint(_ tool: Tool, header: String, payload: String, key: SigningKey? = nil) async throws -> String {
        let signingKey = key ?? tool.key
        let collection = JWTKeyCollection()
        await collection.add(
            rsa: signingKey.privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: signingKey.keyID))
        let signer = try await collection.getKey(for: JWKIdentifier(string: signingKey.keyID))
        var headerSegment: [UInt8] = []
        Base64URL.append(Array(header.utf8), to: &headerSegment)
        return try TokenMinter.assemble(header: headerSegment, payload: Array(payload.utf8), signer: signer)
    }

    /// The kind `decode` judges the token as.
    static func kind(of jwt: DecodedJWT) -> ProviderKind {
        ProviderKind.named(by: jwt.claims["authorization"]) ?? .consumer
    }

    static func keySetFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "google-corpus-\(UUID().uuidString).json"
        ).path
        let set = JSONWebKeySet(
            keys: try [keys.spare, keys.managed, keys.file].map { try RSAPublicJWK($0.publicKey, keyID: $0.keyID) })
        try JSONEncoder().encode(set).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func judge(_ token: String, keySet path: String) async throws -> [String] {
        let jwt = try JWTInspector.decode(token)
        var results = TokenRules.evaluate(jwt, kind: kind(of: jwt), id: nil, now: now, providerID: "my-project")
        results.append(await JWKSVerifier(keySet: .file(path), transport: sharedTransport).verify(token, jwt: jwt))
        return results.map(\.description)
    }

    @Test(arguments: Tool.allCases)
    func everyTokenTypeOfEveryToolIsAcceptedLineByLine(_ tool: Tool) async throws {
        let path = try Self.keySetFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        for type in Self.types {
            let token = try await Self.mint(tool, header: tool.header, payload: tool.payload(type.authorization))
            let lines = try await Self.judge(token, keySet: path)
            let expected = tool.commonLines + [type.line, tool.signatureLine(keySet: path)]
            #expect(lines == expected, "\(tool.rawValue), \(type.name) token")
            #expect(!lines.contains { $0.hasPrefix("✗") }, "Fleet Engine accepts \(tool.rawValue)'s \(type.name) token")
        }
    }

    /// The header bytes are the tool's own: a reviewer can compare them with a real token.
    @Test func theHeadersAreTheToolsOwnBytes() async throws {
        let token = try await Self.mint(
            .impersonatedSigner, header: Tool.impersonatedSigner.header, payload: Tool.impersonatedSigner.payload("{}"))
        #expect(
            token.hasPrefix("eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9."), "java-jwt's {\"typ\":\"JWT\",\"alg\":\"RS256\"}")
        let python = try await Self.mint(.googleAuthPython, header: Tool.googleAuthPython.header, payload: "{}")
        #expect(
            python.hasPrefix("eyJ0eXAiOiAiSldUIiwgImFsZyI6ICJSUzI1NiIs"),
            "json.dumps' {\"typ\": \"JWT\", \"alg\": \"RS256\", ...}")
    }

    /// What Fleet Engine refuses stays refused in the same shapes: a kid-less token altered after
    /// signing, or signed by a key the account does not have; a kid naming no key of the set; an
    /// ID Fleet Engine cannot hold; `taskids` that is no array.
    @Test func theRefusedShapesFailWithTheirReason() async throws {
        let path = try Self.keySetFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let tool = Tool.impersonatedSigner
        let good = try await Self.mint(tool, header: tool.header, payload: tool.payload(#"{"vehicleid":"vehicle-7"}"#))
        let parts = good.split(separator: ".").map(String.init)
        let altered = [parts[0], TestJWT.encode(json: tool.payload(#"{"vehicleid":"vehicle-8"}"#)), parts[2]].joined(
            separator: ".")
        #expect(
            try await Self.judge(altered, keySet: path).last
                == "✗ signature: signature does not verify against any of the 3 keys from \(path) (no kid): the token was altered or signed by another key"
        )

        let stranger = SigningKey(privateKey: Keys.b.privateKey, keyID: "unused", accountEmail: nil)
        let foreign = try await Self.mint(
            tool, header: tool.header, payload: tool.payload(#"{"vehicleid":"vehicle-7"}"#), key: stranger)
        #expect(
            try await Self.judge(foreign, keySet: path).last?.hasPrefix(
                "✗ signature: signature does not verify against any of the 3 keys") == true)

        let unknownKid = try await Self.mint(
            .localSigner, header: #"{"kid":"deleted-key","typ":"JWT","alg":"RS256"}"#,
            payload: Tool.localSigner.payload(#"{"tripid":"trip-42"}"#))
        #expect(
            try await Self.judge(unknownKid, keySet: path).last
                == "✗ signature: kid deleted-key not in the JWKS at \(path) (key rotated or deleted?)")

        let long = String(repeating: "v", count: 65)
        let tooLong = try await Self.mint(
            tool, header: tool.header, payload: tool.payload(#"{"vehicleid":"\#(long)"}"#))
        #expect(
            try await Self.judge(tooLong, keySet: path).contains(
                "✗ authorization: authorization.vehicleid \"vvvvvvvvvvvvvvvvvvvv…\" can never name a Fleet Engine resource: it is 65 characters long; Fleet Engine IDs are at most 64"
            ))
        let slash = try await Self.mint(
            tool, header: tool.header, payload: tool.payload(#"{"tripid":"trip-42","vehicleid":"fleet/7"}"#))
        #expect(
            try await Self.judge(slash, keySet: path).contains(
                "✗ authorization: authorization.vehicleid \"fleet/7\" can never name a Fleet Engine resource: it contains '/'; Fleet Engine IDs may not contain / : ? , #"
            ),
            "an ID in any claim, not only the one the kind reads")
        let taskString = try await Self.mint(tool, header: tool.header, payload: tool.payload(#"{"taskids":"task-3"}"#))
        #expect(
            try await Self.judge(taskString, keySet: path).contains(
                "✗ authorization: authorization.taskids is a JSON string, expected an array of strings"))
    }
}
