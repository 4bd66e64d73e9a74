import Foundation
import LogReading
import Testing

/// Every export shape, built from the same documented entries, reads to the same summary.
@Suite(.timeLimit(.minutes(15)))
struct ExportShapeTests {
    static let expected = LogSummary(ExportFixture.read(ExportFixture.lines(ExportFixture.fleet))).json

    @Test func jsonLinesGiveTheFleetsFacts() throws {
        let reader = ExportFixture.read(ExportFixture.lines(ExportFixture.fleet))
        #expect(reader.problems.isEmpty)
        let summary = LogSummary(reader)
        #expect(summary.entries == 81)
        #expect(summary.from == ExportFixture.base)
        #expect(summary.to == ExportFixture.base.adding(seconds: 533))
        let ids = Dictionary(uniqueKeysWithValues: summary.ids.map { ($0.id, $0) })
        let v1 = try #require(ids[LoggedID(.vehicle, "vehicle-1")])
        #expect(v1.calls == 49)
        #expect(v1.errors == ["NOT_FOUND": 1])
        #expect(v1.methods == ["update_vehicle": 48, "get_vehicle": 1])
        #expect(v1.silences == [Silence(start: ExportFixture.base.adding(seconds: 115), seconds: 300)])
        #expect(v1.header?.platform == "ANDROID")
        #expect(v1.header?.sdkType == "DRIVER")
        #expect(v1.header?.sdkVersion == "5.0.0")
        #expect(v1.header?.osVersion == "14")
        let v2 = try #require(ids[LoggedID(.vehicle, "vehicle-2")])
        #expect(v2.calls == 31)
        #expect(v2.errors == ["PERMISSION_DENIED": 1])
        #expect(v2.silences.isEmpty)
        // An entry counts for every ID its labels name, trips listed with commas included.
        #expect(ids[LoggedID(.trip, "trip-1")]?.calls == 25)
        #expect(ids[LoggedID(.trip, "trip-2")]?.calls == 24)
        #expect(summary.versions.count == 2)
        let android = try #require(summary.versions.first { $0.platform == "ANDROID" })
        #expect((android.sdkType, android.sdkVersion, android.devices, android.calls) == ("DRIVER", "5.0.0", 1, 49))
        #expect((android.errors, android.silences) == (1, 1))
        let ios = try #require(summary.versions.first { $0.platform == "IOS" })
        #expect((ios.sdkVersion, ios.devices, ios.calls, ios.errors, ios.silences) == ("6.1.0", 1, 31, 1, 0))
    }

    @Test(arguments: [
        "array", "one-line array", "concatenated", "rawLogs", "BigQuery", "gzip lines", "gzip array", "gzip BigQuery",
        "lines in 7-byte chunks",
    ])
    func everyShapeGivesTheSameSummary(shape: String) {
        let fleet = ExportFixture.fleet
        let bytes: [UInt8]
        var chunk = 64 << 10
        switch shape {
        case "array": bytes = ExportFixture.array(fleet)
        case "one-line array": bytes = ExportFixture.oneLineArray(fleet)
        case "concatenated": bytes = ExportFixture.concatenated(fleet)
        case "rawLogs": bytes = ExportFixture.rawLogs(fleet)
        case "BigQuery": bytes = ExportFixture.bigQuery(fleet)
        case "gzip lines": bytes = ExportFixture.gzip(ExportFixture.lines(fleet))
        case "gzip array": bytes = ExportFixture.gzip(ExportFixture.array(fleet))
        case "gzip BigQuery": bytes = ExportFixture.gzip(ExportFixture.bigQuery(fleet))
        default:
            bytes = ExportFixture.lines(fleet)
            chunk = 7
        }
        let reader = ExportFixture.read(bytes, chunkSize: chunk)
        #expect(reader.problems.isEmpty, "\(reader.problems)")
        #expect(LogSummary(reader).json == Self.expected)
    }

    /// Two gzip members one after the other are one stream (RFC 1952 §2.2), as `cat a.gz b.gz` makes.
    @Test func concatenatedGzipMembersReadAsOne() {
        let fleet = ExportFixture.fleet
        let half = fleet.count / 2
        let bytes =
            ExportFixture.gzip(ExportFixture.lines(Array(fleet[..<half])))
            + ExportFixture.gzip(ExportFixture.lines(Array(fleet[half...])))
        let reader = ExportFixture.read(bytes, chunkSize: 100)
        #expect(reader.problems.isEmpty, "\(reader.problems)")
        #expect(LogSummary(reader).json == Self.expected)
    }

    /// A sink's folder: LOG_ID/YYYY/MM/DD/HH:00:00_HH:59:59_S0.json, one folder per log, beside a
    /// file that is not an export.
    @Test func aSinkFolderReadsAsOneExport() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("logreading-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fleet = ExportFixture.fleet
        let byLog = Dictionary(grouping: fleet) { ($0["logName"] as! String).components(separatedBy: "%2F").last! }
        for (method, entries) in byLog {
            let hour = folder.appendingPathComponent("fleetengine.googleapis.com%2F\(method)/2024/05/01")
            try FileManager.default.createDirectory(at: hour, withIntermediateDirectories: true)
            let file = hour.appendingPathComponent("10:00:00_10:59:59_S0.json")
            let bytes = ExportFixture.lines(entries)
            try Data(method == "get_vehicle" ? ExportFixture.gzip(bytes) : bytes).write(to: file)
        }
        try Data("not an export".utf8).write(to: folder.appendingPathComponent("README.txt"))
        var reader = ExportReader()
        reader.read(path: folder.path)
        #expect(reader.skipped == [.otherFile: 1])
        #expect(reader.problems.map(\.reason) == [.otherFile])
        #expect(
            LogSummary(reader).json.replacingOccurrences(of: ",\"other_file\":1", with: "").replacingOccurrences(
                of: "\"skipped\":{\"other_file\":1}", with: "\"skipped\":{}") == Self.expected)
    }

    /// Keys match without regard to case or underscores: a dataset fleet-debugger lowercased.
    @Test func keysMatchWithoutCaseOrUnderscores() throws {
        let entry = ExportFixture.lowered(ExportFixture.entry(insertID: "a", at: 0)) as! [String: Any]
        var upper: [String: Any] = [:]
        for (key, value) in entry { upper[key.uppercased()] = value }
        upper["INSERT_ID"] = upper.removeValue(forKey: "INSERTID")
        let reader = ExportFixture.read(ExportFixture.lines([upper]))
        #expect(reader.problems.isEmpty, "\(reader.problems)")
        let tally = try #require(reader.tally.ids[LoggedID(.vehicle, "vehicle-1")])
        #expect(tally.calls == 1)
        #expect(tally.header?.sdkVersion == "5.0.0")
        #expect(tally.methods == ["update_vehicle": 1])
    }

    /// LMFS: delivery vehicles and tasks, a `…delivery.log.v1` @type matched by its suffix.
    @Test func lastMileEntriesCountForDeliveryVehiclesAndTasks() throws {
        var entry = ExportFixture.entry(
            insertID: "d1", at: 0, method: "update_delivery_vehicle", type: "UpdateDeliveryVehicleLog",
            labels: ["delivery_vehicle_id": "dv-1", "task_id": "task-1"])
        var payload = entry["jsonPayload"] as! [String: Any]
        payload["@type"] = "type.googleapis.com/maps.fleetengine.delivery.log.v1.UpdateDeliveryVehicleLog"
        entry["jsonPayload"] = payload
        entry["resource"] = ["type": "fleetengine.googleapis.com/DeliveryFleet"]
        let reader = ExportFixture.read(ExportFixture.lines([entry]))
        #expect(reader.unknownTypes.counts.isEmpty)
        #expect(reader.tally.ids[LoggedID(.deliveryVehicle, "dv-1")]?.calls == 1)
        #expect(reader.tally.ids[LoggedID(.task, "task-1")]?.calls == 1)
        #expect(LogSummary(reader).versions.first?.devices == 1)
    }

    /// The Logging API's `entries.list` answer keeps them under `entries`.
    @Test func anEntriesListAnswerIsAWrapper() {
        let bytes = ExportFixture.json(["entries": ExportFixture.fleet, "nextPageToken": "abc"], pretty: true)
        let reader = ExportFixture.read(bytes)
        #expect(reader.problems.isEmpty)
        #expect(LogSummary(reader).json == Self.expected)
    }
}
