import Foundation
import LogReading
import Testing

/// Duplicates, split entries and restricted entries are each one call; unknown types and fields
/// are counted and named; entries of other services are skipped with their reason.
@Suite(.timeLimit(.minutes(15)))
struct EntryCountingTests {
    @Test func theSameInsertIdTwiceIsOneEntry() {
        let entries = [ExportFixture.entry(insertID: "a", at: 0), ExportFixture.entry(insertID: "b", at: 5)]
        // The same export read twice, as two overlapping downloads would be.
        var reader = ExportReader()
        for _ in 0..<2 {
            var source = MemoryChunkSource(ExportFixture.lines(entries))
            reader.read(&source, name: "export.json")
        }
        #expect(reader.tally.entries == 2)
        #expect(reader.skipped == [.duplicate: 2])
        #expect(reader.problems.isEmpty)
    }

    /// Split entries: `split.uid`, `split.index`, `split.totalSplits`, the index appended to the
    /// insertId (split-logs guide). Counted once, whichever part comes first.
    @Test func aSplitEntryCountsOnce() {
        let parts = (0..<3).reversed().map { index in
            ExportFixture.entry(
                insertID: "s-\(index)", at: 0, method: "search_vehicles", type: "SearchVehiclesLog",
                split: ["uid": "789+2022-02-22T12:22:22.22+05:00", "index": index, "totalSplits": 3])
        }
        let reader = ExportFixture.read(ExportFixture.lines(parts))
        #expect(reader.tally.entries == 1)
        #expect(reader.skipped == [.splitPart: 2])
        #expect(reader.tally.ids[LoggedID(.vehicle, "vehicle-1")]?.methods == ["search_vehicles": 1])
    }

    /// A restricted-use entry points back to its default entry with `parentInsertId`.
    @Test func aRestrictedEntryIsItsParentsCall() {
        var restricted = ExportFixture.entry(insertID: "r-1", at: 0, type: "UpdateVehicleRestrictedLog")
        var payload = restricted["jsonPayload"] as! [String: Any]
        payload["parentInsertId"] = "p-1"
        restricted["jsonPayload"] = payload
        let reader = ExportFixture.read(ExportFixture.lines([ExportFixture.entry(insertID: "p-1", at: 0), restricted]))
        #expect(reader.tally.entries == 1)
        #expect(reader.skipped == [.restricted: 1])
        #expect(reader.unknownTypes.counts.isEmpty)
    }

    @Test func unknownTypesAndFieldsAreNamedNotErrors() {
        let entry = ExportFixture.entry(
            insertID: "a", at: 0, method: "frobnicate_vehicle", type: "FrobnicateVehicleLog",
            header: ExportFixture.androidHeader.merging(["futureField": "x"]) { $1 }, extra: ["newTopLevel": 1])
        let reader = ExportFixture.read(ExportFixture.lines([entry]))
        #expect(reader.problems.isEmpty)
        #expect(reader.tally.entries == 1)
        #expect(reader.unknownTypes.counts == ["type.googleapis.com/maps.fleetengine.v1.FrobnicateVehicleLog": 1])
        #expect(reader.unknownFields.counts == ["newTopLevel": 1, "request.header.futureField": 1])
        #expect(reader.tally.ids[LoggedID(.vehicle, "vehicle-1")]?.methods == ["frobnicate_vehicle": 1])
    }

    @Test func anotherServicesEntryIsSkippedWithItsReason() {
        var other = ExportFixture.entry(insertID: "x", at: 0)
        other["logName"] = "projects/demo-project/logs/cloudaudit.googleapis.com%2Factivity"
        let reader = ExportFixture.read(ExportFixture.lines([ExportFixture.entry(insertID: "a", at: 0), other]))
        #expect(reader.tally.entries == 1)
        #expect(reader.skipped == [.otherService: 1])
        #expect(
            reader.problems.map(\.description) == [
                "export.json:2: other_service: an entry of log cloudaudit.googleapis.com/activity"
            ])
    }

    /// A failed call: severity ERROR and `errorResponse` {code, httpStatusCode, message}; a code
    /// written as its number reads as its name.
    @Test func errorsAreCountedByCode() {
        let entries = [
            ExportFixture.entry(
                insertID: "a", at: 0, error: ["code": "NOT_FOUND", "httpStatusCode": 404, "message": "gone"]),
            ExportFixture.entry(insertID: "b", at: 1, error: ["code": 7, "httpStatusCode": 403]),
            ExportFixture.entry(insertID: "c", at: 2, extra: ["severity": "ERROR"]),
        ]
        let reader = ExportFixture.read(ExportFixture.lines(entries))
        let tally = reader.tally.ids[LoggedID(.vehicle, "vehicle-1")]
        #expect(tally?.errors == ["NOT_FOUND": 1, "PERMISSION_DENIED": 1, "UNKNOWN": 1])
        #expect(tally?.errorMessages == ["gone"])
        let summary = LogSummary(reader)
        #expect(summary.names(anyOf: ["permission_denied", "INTERNAL", "silence"]) == ["permission_denied"])
    }

    /// An app update mid-export shows as a header change; a server call's empty header changes nothing.
    @Test func theHeaderIsKeptAsItChanged() {
        var updated = ExportFixture.androidHeader
        updated["sdkVersion"] = "5.1.0"
        let entries = [
            ExportFixture.entry(insertID: "a", at: 0),
            ExportFixture.entry(insertID: "b", at: 10, header: nil),
            ExportFixture.entry(insertID: "c", at: 20, header: updated),
            ExportFixture.entry(insertID: "d", at: 30, header: ["regionCode": "US"]),
        ]
        // Newest first, as gcloud lists them: the latest by time still wins.
        let reader = ExportFixture.read(ExportFixture.array(entries))
        let tally = reader.tally.ids[LoggedID(.vehicle, "vehicle-1")]
        #expect(tally?.header?.sdkVersion == "5.1.0")
        #expect(tally?.headerChanges.map(\.header.sdkVersion) == ["5.1.0", "5.0.0"])
    }

    @Test func instantsReadInEveryWrittenForm() {
        let expected = LogInstant(microseconds: 1_714_557_600_123_456)
        for text in [
            "2024-05-01T10:00:00.123456Z", "2024-05-01T10:00:00.123456789Z", "2024-05-01 10:00:00.123456 UTC",
            "2024-05-01T12:00:00.123456+02:00", "1714557600.123456",
        ] {
            #expect(LogInstant.parse(text) == expected, "\(text)")
        }
        #expect(LogInstant.parse("2024-05-01T10:00:00Z") == LogInstant(microseconds: 1_714_557_600_000_000))
        #expect(LogInstant.parse("yesterday") == nil)
        #expect(LogInstant.parse("2024-13-01T10:00:00Z") == nil)
        #expect(expected.description == "2024-05-01T10:00:00.123Z")
    }
}

/// The reader tells its progress after each chunk: what the command shows on a terminal.
@Suite(.timeLimit(.minutes(15)))
struct ReadProgressTests {
    @Test func eachChunkTellsTheBytesAndEntriesSoFar() {
        let bytes = ExportFixture.lines((0..<200).map { ExportFixture.entry(insertID: "e\($0)", at: Double($0)) })
        var told: [(Int, Int)] = []
        var reader = ExportReader()
        reader.onChunk = { told.append(($0, $1)) }
        var source = MemoryChunkSource(bytes, chunkSize: 4096)
        reader.read(&source, name: "export.json")
        #expect(told.count == (bytes.count + 4095) / 4096)
        #expect(told.map(\.0) == told.map(\.0).sorted())
        #expect(told.last?.0 == bytes.count)
        #expect(told.last?.1 == 200)
    }
}
