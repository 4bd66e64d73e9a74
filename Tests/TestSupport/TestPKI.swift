import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ProviderVocabulary
import SwiftASN1
import X509

/// A private CA made at test time, and leaf certificates it signs: nothing on disk but the CA's
/// PEM in a temporary file (what `--cacert` reads).
public struct TestPKI: Sendable {
    let caKey = P256.Signing.PrivateKey()
    let caName: DistinguishedName
    public let ca: Certificate
    /// The CA's PEM, for `--cacert`.
    public let caFile: String

    public init(name: String = "tokendash test CA") throws {
        caName = try DistinguishedName { CommonName(name) }
        let now = Date()
        ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey))
        caFile =
            FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-ca-\(UUID().uuidString).pem").path
        try ca.serializeAsPEM().pemString.write(toFile: caFile, atomically: true, encoding: .utf8)
    }

    /// A server certificate for `dnsNames` and `ips` (dotted IPv4), valid over `validity`.
    public func leaf(
        dnsNames: [String] = ["localhost"], ips: [[UInt8]] = [[127, 0, 0, 1]],
        validity: ClosedRange<Date> = Date() - 3600...Date() + 86_400
    ) throws -> (NIOSSLCertificate, NIOSSLPrivateKey) {
        let (certificate, key) = try leafPEM(dnsNames: dnsNames, ips: ips, validity: validity)
        return (
            try NIOSSLCertificate(bytes: Array(certificate.utf8), format: .pem),
            try NIOSSLPrivateKey(bytes: Array(key.utf8), format: .pem)
        )
    }

    /// A server certificate for 127.0.0.1 and its key written as PEM files, as `--cert` and `--key` take them.
    public func leafFiles() throws -> (certificate: String, key: String) {
        let (certificate, key) = try leafPEM(
            dnsNames: ["localhost"], ips: [[127, 0, 0, 1]], validity: Date() - 3600...Date() + 86_400)
        let folder = FileManager.default.temporaryDirectory
        let files = (
            folder.appendingPathComponent("tokendash-leaf-\(UUID().uuidString).pem").path,
            folder.appendingPathComponent("tokendash-leaf-key-\(UUID().uuidString).pem").path
        )
        try certificate.write(toFile: files.0, atomically: true, encoding: .utf8)
        try key.write(toFile: files.1, atomically: true, encoding: .utf8)
        return files
    }

    private func leafPEM(dnsNames: [String], ips: [[UInt8]], validity: ClosedRange<Date>) throws -> (String, String) {
        let key = P256.Signing.PrivateKey()
        let names =
            dnsNames.map { GeneralName.dnsName($0) }
            + ips.map { GeneralName.ipAddress(ASN1OctetString(contentBytes: ArraySlice($0))) }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound,
            issuer: caName, subject: try DistinguishedName { CommonName(dnsNames.first ?? "test server") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames(names)
                try ExtendedKeyUsage([.serverAuth])
            },
            issuerPrivateKey: .init(caKey))
        return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
    }
}

/// A tiny HTTPS server on 127.0.0.1 (SwiftNIO + NIOSSL) answering every GET with `body`.
public struct TLSTestServer: Sendable {
    let channel: any Channel
    public let port: Int
    public var base: String { "https://127.0.0.1:\(port)" }

    /// - Parameter port: 0 for any free port; a fixed one (443 as root) for a test that needs it.
    public static func start(certificate: NIOSSLCertificate, key: NIOSSLPrivateKey, body: Data, port: Int = 0)
        async throws -> TLSTestServer
    {
        let context = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(FixedResponder(body: body))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        guard let port = channel.localAddress?.port else { throw FleetAuthError.other("no port") }
        return TLSTestServer(channel: channel, port: port)
    }

    public func stop() async { try? await channel.close() }
}

/// Answers each request with 200 and the same JSON body: the HTTPS server's, and any NIO test server's.
public final class FixedResponder: ChannelInboundHandler {
    public typealias InboundIn = HTTPServerRequestPart
    public typealias OutboundOut = HTTPServerResponsePart
    let body: Data
    public init(body: Data) { self.body = body }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.count))
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
