import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import X509

/// Why a TLS handshake was refused, in words. BoringSSL reports every chain problem as
/// CERTIFICATE_VERIFY_FAILED, so after a failure a second handshake (verification off, the
/// presented chain kept) fetches the certificates and they are examined here: expired or not yet
/// valid, issued for another name, or signed by a CA we do not trust. Runs only on the failure path.
enum TLSDiagnosis {
    static func explain(url: URL, handshakeError: any Error) async -> String {
        let host = url.host ?? ""
        let port = url.port ?? 443
        guard let chain = try? await presentedChain(host: host, port: port), let leafBytes = chain.first,
            let leaf = try? Certificate(derEncoded: leafBytes)
        else {
            return "TLS handshake failed: \(handshakeError)"
        }
        return explain(
            chain: chain.compactMap { try? Certificate(derEncoded: $0) }, leaf: leaf, host: host,
            now: Date(), nameMismatch: (handshakeError as? NIOSSLExtraError) == .failedToValidateHostname,
            handshakeError: handshakeError)
    }

    static func explain(
        chain: [Certificate], leaf: Certificate, host: String, now: Date,
        nameMismatch: Bool, handshakeError: any Error
    ) -> String {
        let dates = Date.ISO8601FormatStyle.iso8601
        // NIOSSL checks the name only after BoringSSL accepted the chain, so a name failure means the
        // chain was fine, and a chain failure says nothing about the name.
        if nameMismatch {
            let names = Self.names(leaf)
            return
                "TLS: wrong host name: the certificate is for \(names.isEmpty ? "no names" : names.joined(separator: ", ")), not \(host)"
        }
        if leaf.notValidAfter < now {
            return
                "TLS: the backend's certificate expired on \(leaf.notValidAfter.formatted(dates)) (subject: \(leaf.subject))"
        }
        if leaf.notValidBefore > now {
            return
                "TLS: the backend's certificate is not valid before \(leaf.notValidBefore.formatted(dates)) (check the clock)"
        }
        // The issuer at the top of what the server sent is the CA the client would have to trust.
        let top = chain.last ?? leaf
        return "TLS: untrusted certificate (issuer: \(top.issuer)); pass its CA with --cacert FILE"
    }

    /// DNS names and IP addresses of the subject alternative names, or the common name without any.
    static func names(_ certificate: Certificate) -> [String] {
        var names: [String] = []
        if let san = try? certificate.extensions.subjectAlternativeNames {
            for name in san {
                switch name {
                case .dnsName(let dns): names.append(dns)
                case .ipAddress(let bytes): names.append(ipText(Array(bytes.bytes)))
                default: break
                }
            }
        }
        if names.isEmpty {
            for rdn in certificate.subject {
                for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                    names.append(String(describing: attribute.value))
                }
            }
        }
        return names
    }

    private static func ipText(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        guard bytes.count == 16 else { return bytes.map { String($0, radix: 16) }.joined(separator: ":") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    /// The DER certificates the server presents, from a handshake that accepts anything and stops
    /// right after seeing them.
    static func presentedChain(host: String, port: Int) async throws -> [[UInt8]] {
        var configuration = TLSConfiguration.makeClientConfiguration()
        // Full verification so that the custom callback below replaces it (with `.none` it is never called).
        configuration.certificateVerification = .fullVerification
        let context = try NIOSSLContext(configuration: configuration)
        let captured = CapturedChain()
        let serverName = host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(
                        context: context, serverHostname: serverName,
                        customVerificationCallback: {
                            (certificates: [NIOSSLCertificate], promise: EventLoopPromise<NIOSSLVerificationResult>) in
                            captured.set(certificates.compactMap { try? $0.toDERBytes() })
                            // Nothing is sent on this connection: refuse, and the handshake ends here.
                            promise.succeed(NIOSSLVerificationResult.failed)
                        })
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: host, port: port)
            .get()
        // The refused handshake closes the channel; a server that never answers is cut at 5 s.
        let timer = channel.eventLoop.scheduleTask(in: TimeAmount.seconds(5)) {
            channel.close(promise: Optional<EventLoopPromise<Void>>.none)
        }
        try? await channel.closeFuture.get()
        timer.cancel()
        return captured.value
    }

    /// The chain seen by the verification callback (on the channel's event loop), read after the close.
    private final class CapturedChain: Sendable {
        // Guards the DER bytes; written on the event loop, read by the awaiting task.
        private let chain = Mutex<[[UInt8]]>([])
        func set(_ value: [[UInt8]]) { chain.withLock { $0 = value } }
        var value: [[UInt8]] { chain.withLock { $0 } }
    }
}
