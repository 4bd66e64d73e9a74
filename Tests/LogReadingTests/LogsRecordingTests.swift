import Foundation
import Testing

@testable import LogReading

/// A logs recording (`tokendash logs --record`) read back: its entries as the export's, its header
/// and last line set aside whatever the chunks cut, its lines numbered as in the file.
@Suite(.timeLimit(.minutes(15))) struct LogsRecordingTests {
    static let base = LogInstant(microseconds: 1_714_557_600 * 1_000_000 + 123_456)

    static let entries = [
        LogEntry(
            insertID: "a", method: "update_vehicle", time: base, payloadType: "type.googleapis.com/x.UpdateVehicleLog",
            ids: [LoggedID(.vehicle, "v-1"), LoggedID(.trip, "t-1"), LoggedID(.trip, "t-2")],
            header: SDKHeader(sdkVersion: "5.0.0", osVersion: "14", platform: "ANDROID", sdkType: "DRIVER")),
        LogEntry(
            insertID: "b", method: "get_trip", time: base.adding(seconds: 90), severity: "ERROR",
            ids: [LoggedID(.trip, "t-1")],
            error: LoggedError(code: "NOT_FOUND", httpStatus: 404, message: "no \"t-1\"\nhere")),
    ]

    static func recording(trailer: Bool = true) -> [UInt8] {
        var text = LogsRecording.headerLine(tokendash: "tokendash test", command: ["tokendash", "logs"], inputs: ["x"])
        text += "\n" + entries.map(LogsRecording.line).joined(separator: "\n") + "\n"
        if trailer { text += LogsRecording.trailerLine(ExportReader()) + "\n" }
        return Array(text.utf8)
    }

    static func read(_ bytes: [UInt8], chunkSize: Int) -> (
        ExportReader, [LogEntry], LogsRecordingSource<MemoryChunkSource>
    ) {
        var reader = ExportReader()
        var seen: [LogEntry] = []
        reader.onEntry = { seen.append($0) }
        var source = LogsRecordingSource(MemoryChunkSource(bytes, chunkSize: chunkSize))
        reader.read(&source, name: "rec.jsonl")
        return (reader, seen, source)
    }

    /// Every entry back as it was (its time to the microsecond), whatever the chunks cut.
    @Test(arguments: [1, 2, 7, 64, 1 << 16])
    func entriesComeBackWholeAndTheTwoLinesAreSetAside(_ chunkSize: Int) throws {
        let (reader, seen, source) = Self.read(Self.recording(), chunkSize: chunkSize)
        #expect(reader.skipped.isEmpty && reader.problems.isEmpty, "\(reader.problems)")
        #expect(seen.count == 2)
        for (back, original) in zip(seen, Self.entries) {
            #expect(back.time == original.time && back.ids == original.ids && back.method == original.method)
            #expect(back.header == original.header && back.error == original.error)
            #expect(back.insertID == original.insertID && back.severity == original.severity)
        }
        let header = String(decoding: try #require(source.header), as: UTF8.self)
        #expect(header.contains(#""source":"logs""#))
        #expect(LogsRecording.Trailer(try #require(source.trailer)) != nil)
    }

    /// A cut recording has no last line; a garbled entry is named at its own line number.
    @Test func aCutOrGarbledRecordingSaysWhereAndKeepsTheRest() {
        var bytes = Self.recording(trailer: false)
        bytes += Array("{\"insertId\":\"c\",\"timestamp\":\n".utf8)
        let (reader, seen, source) = Self.read(bytes, chunkSize: 5)
        #expect(seen.count == 2)
        #expect(source.trailer == nil)
        #expect(reader.problems.first?.location == "rec.jsonl:4", "\(reader.problems)")
    }

    /// An export that is no recording passes through whole, even a line that starts like a header's.
    @Test func anExportPassesThroughUntouched() throws {
        let text = "{\"form\":1}\n" + LogsRecording.line(Self.entries[0]) + "\n{\"format\":\"other\"}\n"
        let source = LogsRecordingSource(MemoryChunkSource(Array(text.utf8), chunkSize: 3))
        var out: [UInt8] = []
        while let chunk = try source.next() { out += chunk }
        #expect(String(decoding: out, as: UTF8.self) == text)
    }

    @Test func theLastLineCarriesWhatTheReadSkipped() throws {
        var reader = ExportReader()
        var source = MemoryChunkSource(Array("{\"a\":1}\n".utf8))
        reader.read(&source, name: "x")
        let trailer = try #require(LogsRecording.Trailer(Array(LogsRecording.trailerLine(reader).utf8)))
        #expect(trailer.skipped == [.notAnEntry: 1])
        #expect(LogsRecording.Trailer(Array("{\"event\":\"other\"}".utf8)) == nil)
    }

    /// What the docs say the screen keeps a call in: 24 bytes (and 4 per ID it names).
    @Test func aKeptCallIs24Bytes() {
        #expect(MemoryLayout<ExportTimeline.Call>.stride == 24)
    }
}
