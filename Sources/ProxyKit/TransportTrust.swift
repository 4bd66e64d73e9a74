import NIOSSL
import ProviderVocabulary

/// How a backend's certificate is checked, by the transport and by `tap` toward its upstream.
/// A value of its own (not of the transport's) so the proxies name it without AsyncHTTPClient.
public enum TransportTrust: Sendable, Equatable {
    /// The system's roots (`/etc/ssl/certs`).
    case system
    /// Only these PEM certificates, like curl's `--cacert`.
    case certificates(pemFile: String)
    /// No verification at all (`--insecure`): anyone on the path can impersonate the backend.
    case insecure
}

extension TransportTrust {
    /// The client side's TLS under this trust: the transport's, and `tap`'s toward its upstream,
    /// so a backend trusted by `--cacert` is trusted the same way through either.
    /// Throws `FleetAuthError.other` when the CA file cannot be read or holds no certificate.
    public func clientConfiguration() throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch self {
        case .system:
            break
        case .certificates(let path):
            let roots: [NIOSSLCertificate]
            do {
                roots = try NIOSSLCertificate.fromPEMFile(path)
            } catch {
                throw FleetAuthError.other("cannot read CA certificates from \(path): \(error)")
            }
            guard !roots.isEmpty else { throw FleetAuthError.other("no PEM certificate in \(path)") }
            tls.trustRoots = .certificates(roots)
        case .insecure:
            tls.certificateVerification = .none
        }
        return tls
    }
}
