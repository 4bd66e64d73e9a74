import Foundation
import NetworkAddresses

/// How the embedded server listens and mints.
public struct TokenServerConfiguration: Sendable {
    /// Address to bind; loopback unless `allowRemote` is set.
    public var host: String
    /// 0 picks a free port; read the one bound from `EmbeddedTokenServer.baseURL`.
    public var port: UInt16
    /// Binding a non-loopback address exposes a token minter to the network, so it must be asked for.
    public var allowRemote: Bool
    /// Seconds from `iat` to `exp`; Fleet Engine accepts at most 3600.
    public var lifetime: TimeInterval
    public var signingKey: SigningKeySource
    /// The `iss` and `sub` of minted tokens when the key source does not name its own account.
    public var issuer: String
    /// Where the Fleet Engine emulator writes the calls it authenticates as Fleet Engine's own
    /// logs (`--fleet-engine-log`); nil writes none.
    public var fleetEngineLog: String?

    public static let defaultIssuer = "tokendash-local@tokendash.iam.gserviceaccount.com"

    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, allowRemote: Bool = false,
        lifetime: TimeInterval = 3600, signingKey: SigningKeySource = .generated,
        issuer: String = TokenServerConfiguration.defaultIssuer, fleetEngineLog: String? = nil
    ) {
        self.fleetEngineLog = fleetEngineLog
        self.host = host
        self.port = port
        self.allowRemote = allowRemote
        self.lifetime = lifetime
        self.signingKey = signingKey
        self.issuer = issuer
    }

    /// Whether `host` only accepts connections from this machine.
    public var isLoopback: Bool { Self.isLoopback(host) }

    public static func isLoopback(_ host: String) -> Bool { HostPort.isLoopback(host) }

    /// Refuses settings that would mint tokens Fleet Engine rejects or expose the server by accident.
    public func validate() throws(TokenServerError) {
        guard lifetime >= 1, lifetime <= TimeInterval(3600) else { throw .invalidLifetime(lifetime) }
        guard isLoopback || allowRemote else { throw .remoteNotAllowed(host) }
    }
}

/// Where the RSA key that signs tokens comes from.
public enum SigningKeySource: Sendable, Equatable {
    /// A fresh RSA-2048 key, generated at start and held only in memory.
    case generated
    /// A PEM private key (PKCS#1 or PKCS#8) or a Google service-account JSON key file.
    case file(String)
}
