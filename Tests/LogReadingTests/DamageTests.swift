import Foundation
import LogReading
import Testing

/// Someone else's file: each problem one line with its place, what was read before it kept.
@Suite(.timeLimit(.minutes(15)))
struct DamageTests {
    let entries = (0..<10).map { ExportFixture.entry(insertID: "e\($0)", at: Double($0) * 5) }

    @Test func aTruncatedFileKeepsWhatCameBefore() {
        let bytes = ExportFixture.lines(entries)
        let cut = Array(bytes.prefix(bytes.count - 40))
        let reader = ExportFixture.read(cut)
        #expect(reader.tally.entries == 9)
        #expect(reader.problems.map(\.description) == ["export.json:10: truncated: the input ends inside this entry"])
    }

    @Test func aTruncatedArrayNamesTheByteOffsetOfAOneLineArray() {
        let bytes = ExportFixture.oneLineArray(entries)
        let reader = ExportFixture.read(Array(bytes.prefix(bytes.count - 40)))
        #expect(reader.tally.entries == 9)
        #expect(reader.problems.count == 1)
        #expect(reader.problems.first?.reason == .truncated)
        #expect(reader.problems.first?.location.hasPrefix("export.json:byte ") == true)
    }

    @Test func aGarbledLineIsOneProblemAndTheNextLinesRead() {
        var lines = entries.map { ExportFixture.json($0) }
        lines[3] = Array(lines[3].prefix(50))  // cut mid-string
        lines[6] = Array(lines[6].prefix(lines[6].count - 30)) + Array("}}}".utf8)  // braces where they do not fit
        lines.insert(Array("Listed 10 items.".utf8), at: 8)
        let reader = ExportFixture.read(lines.flatMap { $0 + [0x0A] })
        #expect(reader.tally.entries == 8)
        #expect(
            reader.problems.map { "\($0.location) \($0.reason.rawValue)" } == [
                "export.json:4 garbled", "export.json:7 garbled", "export.json:9 not_json",
            ])
    }

    /// A line cut outside a string, followed by the next entry: the `{` that cannot start a value
    /// there ends the cut one.
    @Test func anEntryCutOffByTheNextIsNamed() {
        var lines = entries.map { ExportFixture.json($0) }
        let text = String(decoding: lines[2], as: UTF8.self)
        let cut = text.range(of: "\"labels\"")!.lowerBound
        lines[2] = Array(text[..<cut].utf8)  // ends after a comma, inside the object
        let reader = ExportFixture.read(lines.flatMap { $0 + [0x0A] })
        #expect(reader.tally.entries == 9)
        #expect(reader.problems.map { "\($0.location) \($0.reason.rawValue)" } == ["export.json:3 garbled"])
    }

    @Test func aCutGzipStreamKeepsWhatWasInflated() {
        let many = (0..<2000).map { ExportFixture.entry(insertID: "g\($0)", at: Double($0)) }
        let gz = ExportFixture.gzip(ExportFixture.lines(many))
        let reader = ExportFixture.read(Array(gz.prefix(gz.count * 2 / 3)), chunkSize: 4096)
        #expect(reader.tally.entries > 100)
        #expect(reader.tally.entries < 2000)
        #expect(reader.skipped[.gzip] == 1)
        #expect(reader.problems.contains { $0.reason == .gzip && $0.detail.contains("ends early") })
    }

    @Test func aCorruptGzipStreamIsNamed() {
        var gz = ExportFixture.gzip(ExportFixture.lines(entries))
        for i in 20..<60 { gz[i] ^= 0x5A }
        let reader = ExportFixture.read(gz)
        #expect(reader.skipped[.gzip] == 1)
    }

    /// A line over the bound is skipped without being held, and the lines after it read.
    @Test func aHugeLineIsSkippedAndTheRestRead() {
        var huge = ExportFixture.entry(insertID: "huge", at: 1)
        huge["padding"] = String(repeating: "x", count: EntrySplitter.defaultMaxObjectBytes + 10)
        let bytes = ExportFixture.lines([entries[0], huge, entries[1]])
        let reader = ExportFixture.read(bytes, chunkSize: 1 << 20)
        #expect(reader.tally.entries == 2)
        #expect(reader.problems.map { "\($0.location) \($0.reason.rawValue)" } == ["export.json:2 oversized"])
    }

    @Test func aSmallBoundSkipsLargerEntries() {
        let reader = ExportFixture.read(ExportFixture.array(entries), maxObjectBytes: 200)
        #expect(reader.tally.entries == 0)
        #expect(reader.skipped == [.oversized: 10])
    }

    @Test func textIsNotAnExport() {
        let reader = ExportFixture.read(Array("timestamp,vehicle\n2024-05-01,v1\n".utf8))
        #expect(reader.recognized == 0)
        #expect(!reader.sawContainer)
        #expect(reader.skipped == [.notJSON: 2])
    }

    @Test func objectsThatAreNoEntriesAreNamed() {
        let reader = ExportFixture.read(Array("{\"name\":\"x\",\"size\":3}\n".utf8))
        #expect(reader.recognized == 0)
        #expect(
            reader.problems.map(\.description) == [
                "export.json:1: not_an_entry: an object with no LogEntry field (keys: name, size)"
            ])
    }

    @Test func anEmptyArrayIsAnEmptyExport() {
        let reader = ExportFixture.read(Array("[]\n".utf8))
        #expect(reader.sawContainer)
        #expect(reader.problems.isEmpty)
        #expect(LogSummary(reader).entries == 0)
    }

    @Test func aMissingFileIsUnreadable() {
        var reader = ExportReader()
        reader.read(path: "/nonexistent/export.json")
        #expect(reader.problems.map(\.description) == ["/nonexistent/export.json: unreadable: no such file"])
    }
}
