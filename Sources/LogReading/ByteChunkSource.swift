import Foundation

/// Bytes in chunks, so that nothing holds a whole export: a file, stdin, gzip over either, or
/// bytes in memory for tests.
public protocol ByteChunkSource {
    /// The next chunk, or nil at the end. Throws `ChunkSourceError` when the bytes cannot be read.
    mutating func next() throws(ChunkSourceError) -> [UInt8]?
}

public enum ChunkSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or stream could not be read (its error's words).
    case unreadable(String)
    /// The gzip stream is corrupt or ends before its end, after `afterBytes` compressed bytes.
    case gzip(String)

    public var description: String {
        switch self {
        case .unreadable(let words): words
        case .gzip(let words): words
        }
    }
}

/// Bytes in memory, handed on in chunks of `chunkSize` (tests vary it to cut entries anywhere).
public struct MemoryChunkSource: ByteChunkSource {
    let bytes: [UInt8]
    let chunkSize: Int
    var index = 0

    public init(_ bytes: [UInt8], chunkSize: Int = 64 << 10) {
        self.bytes = bytes
        self.chunkSize = max(1, chunkSize)
    }

    public mutating func next() throws(ChunkSourceError) -> [UInt8]? {
        guard index < bytes.count else { return nil }
        let end = min(bytes.count, index + chunkSize)
        defer { index = end }
        return Array(bytes[index..<end])
    }
}

/// A file (or stdin, for "-") read 256 KiB at a time.
public final class FileChunkSource: ByteChunkSource {
    /// Large enough that a read costs little next to splitting it, small enough to be no memory.
    public static let chunkSize = 256 << 10
    private let handle: FileHandle
    private let closes: Bool

    /// Opens `path`; "-" is stdin.
    public init(path: String) throws(ChunkSourceError) {
        if path == "-" {
            handle = FileHandle.standardInput
            closes = false
            return
        }
        guard let opened = FileHandle(forReadingAtPath: path) else {
            throw .unreadable(FileManager.default.fileExists(atPath: path) ? "cannot be opened" : "no such file")
        }
        handle = opened
        closes = true
    }

    deinit { if closes { try? handle.close() } }

    /// Read with read(2) straight into the chunk: `FileHandle.read(upToCount:)` reads into a `Data`
    /// that then has to be copied out, a copy of every byte of the export.
    public func next() throws(ChunkSourceError) -> [UInt8]? {
        let descriptor = handle.fileDescriptor
        var failure: Int32 = 0
        let chunk = [UInt8](unsafeUninitializedCapacity: Self.chunkSize) { buffer, count in
            count = 0
            while true {
                let got = read(descriptor, buffer.baseAddress, buffer.count)
                if got >= 0 {
                    count = got
                    return
                }
                guard errno == EINTR else {
                    failure = errno
                    return
                }
            }
        }
        if failure != 0 { throw .unreadable("read failed: \(String(cString: strerror(failure)))") }
        return chunk.isEmpty ? nil : chunk
    }
}

/// A source whose first bytes were read to sniff it, handed on again before the rest.
struct PrefixedChunkSource<Inner: ByteChunkSource>: ByteChunkSource {
    var prefix: [UInt8]?
    var inner: Inner

    mutating func next() throws(ChunkSourceError) -> [UInt8]? {
        if let prefix {
            self.prefix = nil
            if !prefix.isEmpty { return prefix }
        }
        return try inner.next()
    }
}
