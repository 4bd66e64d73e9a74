/// Base64url without padding (RFC 7515's encoding for JWT segments), appended straight into a
/// byte buffer: a token is built in one array instead of through `Data` and `String` copies.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func append(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + (bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let a = iterator.next() {
            let b = iterator.next()
            let c = iterator.next()
            let chunk = UInt32(a) << 16 | UInt32(b ?? 0) << 8 | UInt32(c ?? 0)
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            if b != nil { out.append(alphabet[Int(chunk >> 6 & 63)]) }
            if c != nil { out.append(alphabet[Int(chunk & 63)]) }
        }
    }
}
