import Foundation
import LogReading

// libFuzzer entry point for the Cloud Logging export reader (see ConfigReaderFuzzer.swift for how
// it is built). The input's first byte chooses the chunk size the rest is handed on in (so
// entries, strings and escapes are cut at every place), and the object bound is 4 KiB so the
// oversized path runs too. Built without CompressNIO, a gzip input is named, not inflated. What
// was read is then summarized as `tokendash logs --summary` prints it. An odd first byte reads
// the input as a logs recording (`LogsRecordingSource`, its header and last line set aside); every
// entry is written as a recording's line and kept in the playing screen's timeline.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    guard let first = bytes.first else { return 0 }
    var reader = ExportReader(maxObjectBytes: 4096)
    var timeline = ExportTimeline()
    reader.onEntry = { entry in
        timeline.add(entry)
        keep(LogsRecording.line(entry))
    }
    let source = MemoryChunkSource(Array(bytes.dropFirst()), chunkSize: Int(first) + 1)
    if first & 1 == 1 {
        var recording = LogsRecordingSource(source)
        reader.read(&recording, name: "/fuzz/recording.jsonl")
        keep(recording.header)
        keep(recording.trailer.flatMap(LogsRecording.Trailer.init))
    } else {
        var export = source
        reader.read(&export, name: "/fuzz/export.json")
    }
    timeline.finish()
    if let from = timeline.from, let to = timeline.to {
        keep(timeline.count(through: from.adding(seconds: from.seconds(to: to) / 2)))
        var tally = ExportTally()
        timeline.fold(0..<min(timeline.count, 256), into: &tally)
        keep(tally.entries)
    }
    let summary = LogSummary(reader)
    keep(summary.json)
    keep(summary.names(anyOf: ["PERMISSION_DENIED", "silence"]))
    keep(reader.problems.map(\.description))
    return 0
}

/// Holds a result the optimizer would otherwise drop together with the code that computes it.
@_optimize(none) private func keep<T>(_ value: T) {}
