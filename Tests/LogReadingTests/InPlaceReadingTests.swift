import Foundation
import LogReading
import Testing

/// Entries whole in a chunk are read in place (one pass, no copy); the rest the careful way. Both
/// must read every shape and every damage alike: the same summary, the same problems at the same
/// places, whatever the chunks.
@Suite(.timeLimit(.minutes(15)))
struct InPlaceReadingTests {
    static var inputs: [(String, [UInt8])] {
        let fleet = ExportFixture.fleet
        let lines = ExportFixture.lines(fleet)
        var garbled = lines
        garbled.insert(contentsOf: Array(#"{"insertId":"bad","timestamp":"#.utf8) + [0x0A], at: lines.count / 2)
        var cut = Array(lines.prefix(lines.count - 40))
        cut += Array("\nnot json at all\n".utf8)
        return [
            ("array", ExportFixture.array(fleet)), ("one-line array", ExportFixture.oneLineArray(fleet)),
            ("lines", lines), ("concatenated", ExportFixture.concatenated(fleet)),
            ("rawLogs", ExportFixture.rawLogs(fleet)), ("BigQuery", ExportFixture.bigQuery(fleet)),
            ("garbled line", garbled), ("cut, then text", cut),
            ("an entry cut off by the next", Array(#"[{"insertId":"x","labels":{"vehicle_id":"v"},"#.utf8) + lines),
            ("a wrapper", Array(#"{"entries":"#.utf8) + ExportFixture.oneLineArray(fleet) + Array("}".utf8)),
        ]
    }

    @Test(arguments: [1, 7, 300, 4096, 64 << 10])
    func bothWaysReadAlike(chunkSize: Int) {
        for (name, bytes) in Self.inputs {
            let careful = ExportFixture.read(bytes, chunkSize: chunkSize, readsInPlace: false)
            let inPlace = ExportFixture.read(bytes, chunkSize: chunkSize)
            #expect(LogSummary(inPlace).json == LogSummary(careful).json, "\(name), chunks of \(chunkSize)")
            #expect(inPlace.problems == careful.problems, "\(name), chunks of \(chunkSize)")
            #expect(inPlace.sawContainer == careful.sawContainer, "\(name)")
        }
    }

    /// The bound holds in place too: an entry over it is skipped and named, not read.
    @Test func anEntryOverTheBoundIsNotReadInPlace() {
        let lines = ExportFixture.lines(ExportFixture.fleet)
        let reader = ExportFixture.read(lines, maxObjectBytes: 300)
        #expect(reader.tally.entries == 0)
        #expect(reader.skipped[.oversized] == ExportFixture.fleet.count)
    }
}
