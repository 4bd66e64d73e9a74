import Foundation
import JWTKit
import _CryptoExtras

/// The RSA key that signs tokens, its key ID (`kid`) and the account named in `iss`/`sub`.
public struct SigningKey: Sendable {
    let privateKey: JWTKit.Insecure.RSA.PrivateKey
    public let keyID: String
    /// The service-account email of the key file, or nil when the key does not name one.
    public let accountEmail: String?

    init(privateKey: JWTKit.Insecure.RSA.PrivateKey, keyID: String? = nil, accountEmail: String? = nil) {
        self.privateKey = privateKey
        self.keyID = keyID ?? Self.thumbprintID(of: privateKey.publicKey)
        self.accountEmail = accountEmail
    }

    public var publicKey: JWTKit.Insecure.RSA.PublicKey { privateKey.publicKey }

    /// A fresh RSA-2048 key that lives only in this process.
    public static func generate() throws(TokenServerError) -> SigningKey {
        do {
            let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            return SigningKey(privateKey: try JWTKit.Insecure.RSA.PrivateKey(backing: backing))
        } catch {
            throw .keyGenerationFailed("\(error)")
        }
    }

    public static func load(_ source: SigningKeySource) throws(TokenServerError) -> SigningKey {
        switch source {
        case .generated: return try generate()
        case .file(let path): return try load(path: path)
        }
    }

    /// Reads a PEM private key (PKCS#1 or PKCS#8) or a service-account JSON key file.
    /// The file must not be readable by group or others: a leaked key mints tokens for anyone.
    public static func load(path: String) throws(TokenServerError) -> SigningKey {
        let mode: UInt16
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard let bits = (attributes[.posixPermissions] as? NSNumber)?.uint16Value else {
                throw TokenServerError.keyFileUnreadable(path: path, reason: "no permission bits")
            }
            mode = bits
        } catch let error as TokenServerError {
            throw error
        } catch {
            throw .keyFileUnreadable(
                path: path,
                reason: FileManager.default.fileExists(atPath: path) ? "\(error.localizedDescription)" : "no such file")
        }
        guard mode & 0o077 == 0 else { throw .keyFileTooOpen(path: path, mode: mode & 0o777) }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .keyFileUnreadable(path: path, reason: error.localizedDescription)
        }
        return try parse(data, path: path)
    }

    /// Parses key file contents; `path` only names the file in errors.
    static func parse(_ data: Data, path: String) throws(TokenServerError) -> SigningKey {
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{") { return try parseServiceAccount(data, path: path) }
        guard text.contains("-----BEGIN") else {
            throw .invalidKey(path: path, reason: "neither a PEM block nor a service-account JSON object")
        }
        guard text.contains("PRIVATE KEY-----") else {
            throw .invalidKey(path: path, reason: "the PEM block is not a private key")
        }
        return SigningKey(privateKey: try privateKey(pem: text, path: path))
    }

    private static func parseServiceAccount(_ data: Data, path: String) throws(TokenServerError) -> SigningKey {
        struct ServiceAccountKey: Decodable {
            var type: String?
            var privateKey: String?
            var privateKeyID: String?
            var clientEmail: String?

            // The key file's own field names, as Google's IAM writes them.
            enum CodingKeys: String, CodingKey {
                case type
                case privateKey = "private_key"
                case privateKeyID = "private_key_id"
                case clientEmail = "client_email"
            }
        }
        let account: ServiceAccountKey
        do { account = try JSONDecoder().decode(ServiceAccountKey.self, from: data) } catch {
            throw .invalidKey(path: path, reason: "not a service-account JSON key (\(error.localizedDescription))")
        }
        if let type = account.type, type != "service_account" {
            throw .invalidKey(path: path, reason: "JSON key type is \"\(type)\", expected \"service_account\"")
        }
        guard let pem = account.privateKey, !pem.isEmpty else {
            throw .invalidKey(path: path, reason: "service-account JSON has no \"private_key\"")
        }
        let id = account.privateKeyID.flatMap { $0.isEmpty ? nil : $0 }
        let email = account.clientEmail.flatMap { $0.isEmpty ? nil : $0 }
        return SigningKey(privateKey: try privateKey(pem: pem, path: path), keyID: id, accountEmail: email)
    }

    private static func privateKey(pem: String, path: String) throws(TokenServerError) -> JWTKit.Insecure.RSA.PrivateKey
    {
        do { return try JWTKit.Insecure.RSA.PrivateKey(pem: pem) } catch {
            throw .invalidKey(path: path, reason: "cannot parse the RSA private key (\(error))")
        }
    }

    /// A stable key ID for keys that come without one: the first 16 hex digits of the SHA-256
    /// of the public key's DER, so the same PEM always gets the same `kid`.
    static func thumbprintID(of key: JWTKit.Insecure.RSA.PublicKey) -> String {
        SHA256.hash(data: key.derRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
