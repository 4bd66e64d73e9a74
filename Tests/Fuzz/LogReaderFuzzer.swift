import Foundation
import LogReading

// libFuzzer entry point for the Cloud Logging export reader (see ConfigReaderFuzzer.swift for how
// it is built). The input's first byte chooses the chunk size the rest is handed on in (so
// entries, strings and escapes are cut at every place), and the object bound is 4 KiB so the
// oversized path runs too. Built without CompressNIO, a gzip input is named, not inflated. What
// was read is then summarized as `tokendash logs --summary` prints it.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    guard let first = bytes.first else { return 0 }
    var reader = ExportReader(maxObjectBytes: 4096)
    var source = MemoryChunkSource(Array(bytes.dropFirst()), chunkSize: Int(first) + 1)
    reader.read(&source, name: "/fuzz/export.json")
    let summary = LogSummary(reader)
    keep(summary.json)
    keep(summary.names(anyOf: ["PERMISSION_DENIED", "silence"]))
    keep(reader.problems.map(\.description))
    return 0
}

/// Holds a result the optimizer would otherwise drop together with the code that computes it.
@_optimize(none) private func keep<T>(_ value: T) {}
