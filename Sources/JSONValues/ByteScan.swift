/// Bytes read eight at a time, for the scans the tap makes over every answer it reads: a token's
/// text for its dots and a JSON string for its end, a few hundred bytes each. Byte by byte those
/// two scans were a twentieth of a reading. The tests never pass over a word that holds such a
/// byte, and do not depend on the bytes' order in the word. `package`: the JWT reader
/// (TokenReading) splits tokens with it.
package enum ByteScan {
    package static let ones: UInt64 = 0x0101_0101_0101_0101
    package static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` is `byte` (a zero byte of `word ^ byte×8`).
    @inline(__always) package static func has(_ word: UInt64, _ byte: UInt8) -> Bool {
        let x = word ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & highs != 0
    }

    /// Whether any byte of `word` is below 0x20 (a control character) or above 0x7F (not ASCII).
    @inline(__always) package static func hasControlOrNonASCII(_ word: UInt64) -> Bool {
        ((word &- ones &* 0x20) & ~word | word) & highs != 0
    }

    /// The offset, from `start` in steps of eight, of the first eight bytes `special` may hold
    /// something of, or of the last fewer than eight: every byte before it is plain.
    @inline(__always) package static func skipPlain(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, special: (UInt64) -> Bool
    ) -> Int {
        guard let base = bytes.baseAddress else { return start }
        var index = start
        while bytes.count - index >= 8 {
            if special(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) { break }
            index += 8
        }
        return index
    }
}
