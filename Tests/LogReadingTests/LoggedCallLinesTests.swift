import Foundation
import LogReading
import Testing

/// `tokendash logs --watch`: each counted entry as `fleet_engine_call` lines, one per ID its
/// labels name, and each silence as a line after the read.
@Suite(.timeLimit(.minutes(15)))
struct LoggedCallLinesTests {
    static func watched(_ entries: [[String: Any]]) -> (lines: [String], reader: ExportReader) {
        var lines: [String] = []
        var reader = ExportReader()
        reader.onEntry = { lines += LoggedCallLines.lines($0) }
        var source = MemoryChunkSource(ExportFixture.lines(entries))
        reader.read(&source, name: "export.json")
        return (lines, reader)
    }

    @Test func anEntryOfAVehicleAndItsTripIsALineForEach() {
        let entry = ExportFixture.entry(
            insertID: "a", at: 0, labels: ["vehicle_id": "vehicle-1", "trip_id": "trip-1"],
            error: ["code": "PERMISSION_DENIED", "httpStatusCode": 403, "message": "no access"])
        let tail =
            #""event":"fleet_engine_call","source":"log","method":"update_vehicle","status":"PERMISSION_DENIED","#
            + #""http_status":403,"message":"no access","platform":"ANDROID","sdk_type":"DRIVER","#
            + #""sdk_version":"5.0.0","insert_id":"a"}"#
        // In the labels' order, which the fixture's dictionary does not fix.
        #expect(
            Set(Self.watched([entry]).lines) == [
                #"{"time":"2024-05-01T10:00:00.000Z","kind":"vehicle","id":"vehicle-1","# + tail,
                #"{"time":"2024-05-01T10:00:00.000Z","kind":"trip","id":"trip-1","# + tail,
            ])
    }

    @Test func aServersCallHasNoDeviceAndASuccessHasNoStatusCode() {
        let entry = ExportFixture.entry(
            insertID: "c", at: 1.5, method: "create_trip", type: "CreateTripLog", labels: ["trip_id": "trip-9"],
            header: nil)
        #expect(
            Self.watched([entry]).lines == [
                #"{"time":"2024-05-01T10:00:01.500Z","kind":"trip","id":"trip-9","event":"fleet_engine_call","#
                    + #""source":"log","method":"create_trip","status":"OK","http_status":null,"insert_id":"c"}"#
            ])
    }

    @Test func aDuplicateIsNotWatchedTwice() {
        let entry = ExportFixture.entry(insertID: "a", at: 0)
        #expect(Self.watched([entry, entry]).lines.count == 1)
    }

    @Test func aTokenInAnErrorMessageIsRedacted() throws {
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl"
        let entry = ExportFixture.entry(
            insertID: "a", at: 0, error: ["code": "INVALID_ARGUMENT", "message": "bad token \(jwt)"])
        let line = try #require(Self.watched([entry]).lines.first)
        #expect(!line.contains(jwt))
        #expect(line.contains(#""status":"INVALID_ARGUMENT""#))
    }

    @Test func eachSilenceIsALineAfterTheRead() {
        // Every 5 s for a minute, then nothing for five minutes, then a minute more.
        let times = Array(stride(from: 0.0, through: 60, by: 5)) + Array(stride(from: 360.0, through: 420, by: 5))
        let entries = times.enumerated().map { ExportFixture.entry(insertID: "e\($0.offset)", at: $0.element) }
        let reader = Self.watched(entries).reader
        #expect(
            LoggedCallLines.silenceLines(reader.tally.sortedIDs) == [
                #"{"time":"2024-05-01T10:01:00.000Z","kind":"vehicle","id":"vehicle-1","event":"silence","seconds":300}"#
            ])
    }
}
