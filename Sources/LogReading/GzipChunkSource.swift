// gzip through CompressNIO (adam-fowler/compress-nio, zlib underneath). scripts/fuzz.sh compiles
// this module with bare swiftc, without the package's products: there the reader has no gzip and
// names a gzip input as such (`ExportReader.gzipAvailable`).
#if canImport(CompressNIO)
    import CompressNIO
    import NIOCore

    /// Inflates a gzip stream as it is read, member after member (`cat a.gz b.gz` is one stream, RFC
    /// 1952 §2.2), 256 KiB of output at a time. A stream cut short or corrupt is a
    /// `ChunkSourceError.gzip` after every byte inflated before it was handed on.
    public final class GzipChunkSource<Inner: ByteChunkSource>: ByteChunkSource {
        private var inner: Inner
        private let decompressor: ZlibDecompressor
        private var input = ByteBufferAllocator().buffer(capacity: 64 << 10)
        private var output = ByteBufferAllocator().buffer(capacity: 256 << 10)
        private var innerDone = false
        private var finished = false
        /// Compressed bytes taken from `inner`, for the error's position.
        private var compressedRead = 0

        public init(_ inner: Inner) throws(ChunkSourceError) {
            self.inner = inner
            do {
                decompressor = try ZlibDecompressor(algorithm: .gzip)
            } catch {
                throw .gzip("zlib could not start: \(error)")
            }
        }

        public func next() throws(ChunkSourceError) -> [UInt8]? {
            while !finished {
                if input.readableBytes == 0 {
                    if !innerDone, let chunk = try inner.next() {
                        compressedRead += chunk.count
                        input.discardReadBytes()
                        input.writeBytes(chunk)
                        continue
                    }
                    innerDone = true
                    finished = true
                    if !memberEnded() {
                        throw .gzip("the gzip stream ends early (cut short after \(compressedRead) compressed bytes)")
                    }
                    return nil
                }
                output.clear()
                let before = input.readableBytes
                do {
                    try decompressor.inflate(from: &input, to: &output)
                } catch let error as CompressNIOError where error == .bufferOverflow || error == .inputBufferOverflow {
                    // The output is full, or the input is used up: both are the stream going on.
                } catch {
                    finished = true
                    throw .gzip(
                        "the gzip stream is corrupt (\(error)) within its first \(compressedRead) compressed bytes")
                }
                if output.readableBytes > 0 { return Array(output.readableBytesView) }
                if before == input.readableBytes {
                    // Nothing read, nothing written: this member has ended and bytes follow it.
                    let view = input.readableBytesView
                    guard view.count >= 2 else {
                        if !innerDone, let chunk = try inner.next() {
                            compressedRead += chunk.count
                            input.writeBytes(chunk)
                            continue
                        }
                        finished = true
                        throw .gzip("\(view.count) stray byte after the gzip stream's end")
                    }
                    guard view[view.startIndex] == 0x1F, view[view.startIndex + 1] == 0x8B else {
                        finished = true
                        throw .gzip("bytes that are not gzip follow the gzip stream's end")
                    }
                    do { try decompressor.reset() } catch { throw .gzip("zlib could not restart: \(error)") }
                }
            }
            return nil
        }

        /// Whether the member read last is complete: a member that has ended reads nothing more, while
        /// one cut short takes the probe's byte (or calls it corrupt).
        private func memberEnded() -> Bool {
            var probe = ByteBufferAllocator().buffer(capacity: 1)
            probe.writeInteger(UInt8(0))
            var sink = ByteBufferAllocator().buffer(capacity: 64)
            do {
                try decompressor.inflate(from: &probe, to: &sink)
            } catch {
                return false
            }
            return probe.readableBytes == 1 && sink.readableBytes == 0
        }
    }
#endif
