import Foundation

#if canImport(Crypto)
    import Crypto
#endif

/// A short name for a token that tells tokens apart across the pane, the fetch log, `watch` and
/// `decode` without revealing them: the first 8 hex digits of SHA-256 over the token's text.
/// 32 bits name a token, they do not authenticate it, and reveal nothing usable about it.
public enum TokenFingerprint {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    public static func of(_ token: String) -> String {
        #if canImport(Crypto)
            // Hex by hand: String(format:) four times cost more than the hash (the tap takes one a token).
            // Hashed where the token's UTF-8 lies, when it is contiguous: not copied into a `Data` first.
            let digest =
                token.utf8.withContiguousStorageIfAvailable { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
                ?? SHA256.hash(data: Data(token.utf8))
            return String(unsafeUninitializedCapacity: 8) { out in
                for (i, byte) in digest.prefix(4).enumerated() {
                    out[2 * i] = hexDigits[Int(byte >> 4)]
                    out[2 * i + 1] = hexDigits[Int(byte & 0x0F)]
                }
                return 8
            }
        #else
            // Only `scripts/fuzz.sh` builds TokenReading without swift-crypto (bare swiftc, no package
            // modules); the fuzzers need a stable 8-hex-digit value, not SHA-256 itself.
            var hash: UInt32 = 2_166_136_261
            for byte in token.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
            return String(format: "%08x", hash)
        #endif
    }
}
