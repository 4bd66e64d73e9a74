/// Values made from a field's bytes, kept by those bytes: an export repeats the same few SDK
/// versions, device models, `@type`s and log names in every entry, so the reader makes each
/// `String` (and what is worked out from it) once and then only finds it again. A lookup hashes
/// the bytes and compares them; no `String` or array is made to ask.
///
/// Bounded: at most `capacity` values, after which new bytes are still answered (by the caller
/// making the value) but not kept; a probe longer than `maxProbe` is a miss, so no input can make
/// lookups slow by colliding its hashes (the seed is random besides).
struct ByteKeyedCache<Value: Sendable>: Sendable {
    /// Values kept; a fleet has a few hundred device models at most.
    static var capacity: Int { 1024 }
    /// Slots probed before a lookup gives up: a well-spread table of this load rarely needs four.
    static var maxProbe: Int { 16 }

    private struct Slot: Sendable {
        var hash: UInt64
        var start: Int
        var count: Int
        var value: Value
    }

    // Twice the capacity, a power of two: at most half full, and the index is a mask of the hash.
    private var slots: [Slot?] = Array(repeating: nil, count: 2 * 1024)
    private var arena: [UInt8] = []
    private var kept = 0
    private let seed = UInt64.random(in: .min ... .max)

    /// The value kept for `tag` and `bytes`, or nil.
    @inline(__always)
    func value(_ tag: UInt8, _ bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        let hash = Self.hash(tag, bytes, seed: seed)
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        for _ in 0..<Self.maxProbe {
            guard let slot = slots[index] else { return nil }
            if slot.hash == hash, slot.count == bytes.count, same(slot.start, bytes) { return slot.value }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Keeps `value` for `tag` and `bytes`, when there is room.
    mutating func keep(_ value: Value, _ tag: UInt8, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard kept < Self.capacity else { return }
        let hash = Self.hash(tag, bytes, seed: seed)
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        for _ in 0..<Self.maxProbe {
            if slots[index] == nil {
                slots[index] = Slot(hash: hash, start: arena.count, count: bytes.count, value: value)
                arena.append(contentsOf: bytes)
                kept += 1
                return
            }
            index = (index + 1) & mask
        }
    }

    /// Whether the kept bytes at `start` are `bytes` (as long), eight at a time: a `@type` or a
    /// `logName` is some sixty.
    @inline(__always)
    private func same(_ start: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        arena.withUnsafeBytes { arena in
            let kept = UnsafeRawBufferPointer(rebasing: arena[start..<(start + bytes.count)])
            let given = UnsafeRawBufferPointer(bytes)
            var offset = 0
            while offset + 8 <= given.count {
                guard
                    kept.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        == given.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                else { return false }
                offset += 8
            }
            while offset < given.count {
                guard kept[offset] == given[offset] else { return false }
                offset += 1
            }
            return true
        }
    }

    /// A multiply-and-fold hash of 8 bytes at a time (wyhash's mixing step): a few nanoseconds for
    /// the short values this keeps, where SipHash would cost more than making the string.
    @inline(__always)
    static func hash(_ tag: UInt8, _ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        var hash = seed ^ (UInt64(tag) << 56) ^ UInt64(bytes.count)
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + 8 <= raw.count {
            hash = mix(hash, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < raw.count {
            var last: UInt64 = 0
            for index in offset..<raw.count { last = last << 8 | UInt64(raw[index]) }
            hash = mix(hash, last)
        }
        return mix(hash, 0x9E37_79B9_7F4A_7C15)
    }

    @inline(__always)
    private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = (a ^ 0xA076_1D64_78BD_642F).multipliedFullWidth(by: b ^ 0xE703_7ED1_A0B4_28DB)
        return product.high ^ product.low
    }
}
