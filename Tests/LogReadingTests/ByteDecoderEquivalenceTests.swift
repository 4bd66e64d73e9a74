import Foundation
import JSONValues
import Testing

@testable import LogReading

/// The one-pass decoder reads every entry as the reference path does (`EntryScanner`, then
/// `LogEntryDecoder`): the same entry, unknown names and skips, the same failure at the same
/// offset, the same length of an entry read in place; and it reads the shapes exports come in
/// itself, handing only the odd ones on.
@Suite(.timeLimit(.minutes(15)))
struct ByteDecoderEquivalenceTests {
    static func reference(_ bytes: [UInt8]) -> Result<LogEntryDecoder.Outcome, EntryScanner.Failure> {
        bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(EntryScanner.Failure) in LogEntryDecoder.decode(try EntryScanner.scan(buffer)) }
        }
    }

    /// Decodes `bytes` both ways, whole and as a prefix, and records any difference; says whether
    /// the one pass read it itself.
    @discardableResult
    static func expectAlike(_ bytes: [UInt8], _ decoder: inout LogEntryByteDecoder) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        let expected = reference(bytes)
        let (read, inOnePass) = bytes.withUnsafeBufferPointer { buffer in
            (decoder.decode(buffer), decoder.decodeInOnePass(buffer))
        }
        #expect(read == expected, "\(text)")
        if let inOnePass { #expect(Result.success(inOnePass) == expected, "\(text)") }
        // In place: the entry followed by more bytes, as in a chunk.
        let followed = bytes + Array("\n{\"next\":".utf8)
        let prefix = followed.withUnsafeBufferPointer { decoder.decodePrefix($0, wrapperEnds: false) }
        let referencePrefix = followed.withUnsafeBufferPointer { EntryScanner.scanPrefix($0) }
        #expect(prefix?.length == referencePrefix?.1, "\(text)")
        if let prefix {
            #expect(prefix.newlines == followed[..<prefix.length].count { $0 == 0x0A }, "\(text)")
        }
        #expect(prefix?.outcome == referencePrefix.map { LogEntryDecoder.decode($0.0) }, "\(text)")
        return inOnePass != nil
    }

    /// Entries as the export shapes write them, and as they vary: every field `LogEntryDecoder`
    /// reads, in each form it reads it.
    static var varied: [[String: Any]] {
        let fleet = ExportFixture.fleet
        var entries = fleet + fleet.map { ExportFixture.lowered($0) as! [String: Any] }
        func with(_ changes: [String: Any], payload: [String: Any] = [:], header: [String: Any]? = nil) -> [String: Any]
        {
            var entry = ExportFixture.entry(insertID: "v", at: 3)
            var body = entry["jsonPayload"] as! [String: Any]
            for (key, value) in payload { body[key] = value }
            if let header { body["request"] = ["header": header, "vehicleId": "x"] }
            entry["jsonPayload"] = body
            for (key, value) in changes { entry[key] = value }
            return entry
        }
        entries += [
            with(["severity": 500]), with(["severity": "warning"]), with(["severity": 250.5]),
            with(["severity": "300"]), with(["severity": NSNull()]), with(["severity": true]),
            with(["timestamp": ["value": "2024-05-01 10:00:00.123456 UTC"]]),
            with(["timestamp": 1_714_557_600.25]), with(["timestamp": "1714557600123"]),
            with(["timestamp": "yesterday"]), with(["timestamp": NSNull()]), with(["timestamp": ["value": 1, "x": 2]]),
            with(["timestamp": ["nested": ["value": "2024-05-01T10:00:00Z"]]]),
            with(["timestamp": "2024-05-01T10:00:00.5+02:00   "]),
            with(["insertId": 12345]), with(["insertId": 1.5e300]), with(["insertId": ["value": "wrapped"]]),
            with(["labels": ["trip_id": " t1 , t2,,t1\t", "vehicle_id": "v9", "environment": "prod"]]),
            with(["labels": ["TASK_ID": "task-1", "delivery_vehicle_id": ["value": "dv-1"]]]),
            with(["labels": ["vehicle_id": 42]]), with(["labels": "not an object"]), with(["labels": ["trip_id": ""]]),
            with(["labels": ["trip_id": "a,b", "tripId": "b,c"]]),
            with(["labels": ["vehicle_id": "véhicule-1", "trip_id": "t\u{301},x"]]),
            with(["split": ["uid": "u-1", "index": 2, "totalSplits": 5]]), with(["split": ["index": 1]]),
            with(["split": ["uid": ["value": "u-2"], "index": "3", "totalsplits": 4.0]]), with(["split": "x"]),
            with([:], payload: ["@type": "type.googleapis.com/maps.fleetengine.v1.UpdateVehicleRestrictedLog"]),
            with([:], payload: ["@type": "type.googleapis.com/maps.fleetengine.v1.NewThingLog"]),
            with([:], payload: ["@type": "GetTripLog"]), with([:], payload: ["@type": "a.b.."]),
            with([:], payload: ["@type": 7]), with([:], payload: ["parentInsertId": "parent-1"]),
            with(["parentInsertId": "p-2"]),
            with(["logName": "projects/p/logs/cloudaudit.googleapis.com%2Factivity"]),
            with(["logName": "projects/p/logs/fleetengine.googleapis.com%2f"]),
            with(["logName": "projects/p/logs/fleetengine.googleapis.com/get_trip"]),
            with(["logName": NSNull(), "resource": ["type": "gce_instance"]]),
            with(["logName": NSNull(), "resource": ["type": ["value": "fleetengine.googleapis.com/Fleet"]]]),
            with(["logName": NSNull(), "resource": "flat"]),
            with([:], payload: ["errorResponse": ["code": 5, "httpStatusCode": "404", "message": "gone"]]),
            with([:], payload: ["errorResponse": ["code": ["value": ["value": "3"]], "httpStatusCode": 400.0]]),
            with([:], payload: ["errorResponse": ["code": 99]]), with([:], payload: ["errorResponse": "flat"]),
            with(["severity": "CRITICAL"], payload: ["errorResponse": NSNull()]),
            with([:], header: ["platform": 2, "sdkType": "1", "sdkVersion": "", "osVersion": 17, "futureField": 1]),
            with(
                [:],
                header: ["platform": "PLATFORM_WEB", "sdkType": "SDK_TYPE_CONSUMER", "navSdkVersion": ["value": "5"]]),
            with([:], header: ["platform": "something", "mapsSdkVersion": true, "deviceModel": "Pixel \u{2603}"]),
            with([:], header: ["regionCode": "US"]), with([:], header: [:]),
            with([:], payload: ["request": "flat"]), with([:], payload: ["request": ["header": "flat"]]),
            with(["servertime": "2024-05-01T10:00:00Z", "timestamp": NSNull(), "receiveTimestamp": NSNull()]),
            with(["newTopLevel": [1, 2, ["deep": [true, false, NSNull()]]], "trace": "t", "spanId": "s"]),
            with(["rawLogs": []]), with(["otherService": "x", "apphubDestination": 1]),
            with(["jsonPayload": "flat"]), with(["jsonPayload": NSNull()]), with(["jsonPayload": [1, 2]]),
            with(["escaped\u{1}key": "control bytes in a key", "quote\"key": 1]),
            ["name": "x", "size": 3], [:], ["insertId": "only"],
        ]
        return entries
    }

    /// BigQuery rows (lowercased columns, `jsonpayload_v1_…` payload columns, wrapped timestamps).
    static var bigQueryRows: [[UInt8]] { rows(ExportFixture.fleet) }

    static func rows(_ entries: [[String: Any]]) -> [[UInt8]] {
        ExportFixture.bigQuery(entries).split(separator: 0x0A).map(Array.init)
    }

    @Test func variedEntriesReadAlike() {
        var decoder = LogEntryByteDecoder()
        for entry in Self.varied {
            Self.expectAlike(ExportFixture.json(entry), &decoder)
            Self.expectAlike(ExportFixture.json(entry, pretty: true), &decoder)
        }
        // As BigQuery rows too, those the fixture can write as one: a payload with a written
        // `@type` to name its column by, and times it rewrites as BigQuery does.
        let typed = Self.varied.filter { entry in
            let times = ["timestamp", "receiveTimestamp"].compactMap {
                (entry[$0] as? String).flatMap(LogInstant.parse)
            }
            return (entry["jsonPayload"] as? [String: Any])?["@type"] is String && times.count == 2
        }
        for row in Self.bigQueryRows + Self.rows(typed) { Self.expectAlike(row, &decoder) }
    }

    /// The shapes of real exports never need the reference path.
    @Test func theExportShapesAreReadInOnePass() {
        var decoder = LogEntryByteDecoder()
        let fleet = ExportFixture.fleet
        for entry in fleet + fleet.map({ ExportFixture.lowered($0) as! [String: Any] }) {
            #expect(Self.expectAlike(ExportFixture.json(entry), &decoder))
            #expect(Self.expectAlike(ExportFixture.json(entry, pretty: true), &decoder))
        }
        for row in Self.bigQueryRows { #expect(Self.expectAlike(row, &decoder)) }
    }

    /// What JSON's object model leaves open, `LogEntryDecoder` settles through its tree: a key
    /// repeated exactly keeps its first place and last value, spellings of one field keep the
    /// first, and keys compare as strings.
    @Test(arguments: [
        #"{"insertId":"a","insertId":"b","timestamp":"2024-05-01T10:00:00Z"}"#,
        #"{"insertId":"a","insert_id":"b","timestamp":"2024-05-01T10:00:00Z"}"#,
        #"{"insertId":"a","timestamp":"2024-05-01T10:00:00Z","x":1,"x":2,"y":3,"x":4}"#,
        #"{"jsonPayload":{"@type":"GetTripLog"},"jsonpayload_v1_updatevehiclelog":{"_type":"x"},"timestamp":"2024-05-01T10:00:00Z"}"#,
        #"{"jsonpayload_v1_updatevehiclelog":{"x":1},"jsonPayload":"flat","timestamp":"2024-05-01T10:00:00Z"}"#,
        #"{"timestamp":{"value":"2024-05-01T10:00:00Z","value":"2025-05-01T10:00:00Z"}}"#,
        #"{"timestamp":{"x":1,"value":"2024-05-01T10:00:00Z"}}"#,
        #"{"timestamp":"2024-05-01T10:00:00Z","labels":{"value":{"vehicle_id":"v"}}}"#,
        #"{"timestamp":"2024-05-01T10:00:00Z","labels":{"vehicle_id":"a","vehicle_id":"b"}}"#,
        #"{"timestamp":"2024-05-01T10:00:00Z","jsonPayload":{"request":{"header":{"sdkVersion":"1","sdkVersion":"2"}}}}"#,
        #"{"timestamp":"2024-05-01T10:00:00Z","jsonPayload":{"request":{"header":{"sdkVersion":"","sdk_version":"2"}}}}"#,
        // A Kelvin sign is a K to a `String`.
        "{\"timestamp\":\"2024-05-01T10:00:00Z\",\"jsonPayload\":{\"request\":{\"header\":"
            + "{\"x\":1,\"x\":2,\"sdKVersion\":\"1\",\"sd\u{212A}Version\":\"2\"}}}}",
        #"{"timestamp":"2024-05-01T10:00:00Z","jsonPayload":{"request":{"header":{"sdKVersion":"1","sdKVersion":"2"}}}}"#,
        #"{"timestamp":"2024-05-01T10:00:00Z","insert\u0049d":"escaped key","café":1,"cafe\u0301":2}"#,
        #"{"timestamp":"2024-05-01T10:00:00Z","jsonPayload":{"@type":"a","_type":"b"},"resource":{"type":"x","@type":"y"}}"#,
        #"{"timestamp":"2024-05-01T10:00:00Z","split":{"uid":"a","uid":"b"},"jsonPayload":{"errorResponse":{"code":1,"code":2}}}"#,
        #"{"timestamp":"2\u0030\u00324-05-01T10:00:00Z","logName":"a\/b fleetengine.googleapis.com%2Fx","insertId":"\ud83d\ude95"}"#,
        " \n{\"timestamp\" : \"2024-05-01T10:00:00Z\" ,\t\"insertId\"\r: \"spaced\" } \n",
        #"[{"timestamp":"2024-05-01T10:00:00Z"}]"#, #""text""#, "42", "null", "",
    ])
    func whatTheObjectModelLeavesOpenReadsAlike(text: String) {
        var decoder = LogEntryByteDecoder()
        Self.expectAlike(Array(text.utf8), &decoder)
    }

    /// JSON's grammar, in a part passed over and in a field read.
    @Test(arguments: [
        "01", "-", "-01", "1.", "1.e5", "1e", "1e+", "-0.0e-0", "1E5", "\"\\q\"", "\"\\u12G4\"", "\"\\u12\"",
        "\"\\ud800\\u12\"", "\"\\ud800\\udc00\"", "\"tab\there\"", "tru", "nul", "falsey", "[1,]", "[,1]", "[]",
        "[1 2]", "{\"a\":1,}", "{,}", "{\"a\" 1}", "{\"a\":}", "{1:2}", "{}", "{\"a\":1 \"b\":2}", "\"open",
        "[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]", "[\"é\\u00e9\", -1.5E+3, true, false, null, {\"\":{}}]",
    ])
    func grammarIsCheckedAlike(value: String) {
        var decoder = LogEntryByteDecoder()
        for field in ["response", "insertId", "timestamp", "labels", "split"] {
            let entry = #"{"timestamp":"2024-05-01T10:00:00Z","jsonPayload":{"@type":"x"},"\#(field)":\#(value)}"#
            Self.expectAlike(Array(entry.utf8), &decoder)
        }
        let header = #"{"timestamp":"t","jsonPayload":{"request":{"header":{"sdkVersion":\#(value),"x":\#(value)}}}}"#
        Self.expectAlike(Array(header.utf8), &decoder)
    }

    /// Nesting up to the scanner's limit reads, past it is refused, whatever the innermost value.
    @Test func nestingAtTheLimitReadsAlike() {
        var decoder = LogEntryByteDecoder()
        let limit = EntryScanner.depthLimit
        for levels in (limit - 3)...(limit + 1) {
            for leaf in ["\"x\"", "1", "true", "[]", "{}"] {
                let objects = String(repeating: "{\"a\":", count: levels) + leaf + String(repeating: "}", count: levels)
                let arrays = String(repeating: "[", count: levels) + leaf + String(repeating: "]", count: levels)
                for nested in [objects, arrays] {
                    let entry = #"{"timestamp":"2024-05-01T10:00:00Z","response":\#(nested)}"#
                    Self.expectAlike(Array(entry.utf8), &decoder)
                }
            }
        }
    }

    /// Damage anywhere, made by cutting, inserting and swapping bytes of real entries: refused
    /// with the reference path's reason and offset, or read as it reads what is left.
    @Test func damagedEntriesReadAlike() {
        var random = SeededGenerator(seed: 60)
        let entries = ExportFixture.fleet.prefix(12).map { ExportFixture.json($0) } + Self.bigQueryRows.prefix(4)
        let inserts = Array(#"{}[],:"\ 0-.eE+tfnu1a_@"#.utf8) + [0x0A, 0x09, 0x01, 0xC3, 0xFF]
        var decoder = LogEntryByteDecoder()
        for round in 0..<6000 {
            var bytes = entries[round % entries.count]
            for _ in 0...(random.next() % 3) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 4 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(inserts[Int(random.next() % UInt64(inserts.count))], at: at)
                case 2: bytes[at] = inserts[Int(random.next() % UInt64(inserts.count))]
                default: bytes = Array(bytes[..<at])
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            Self.expectAlike(bytes, &decoder)
        }
    }

    /// Values made once are found again by their bytes, and the cache stays within its bound.
    @Test func theCacheFindsWhatItKeptAndStaysBounded() {
        var cache = ByteKeyedCache<String>()
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        for index in 0..<(ByteKeyedCache<String>.capacity + 500) {
            let key = bytes("value-\(index)")
            key.withUnsafeBufferPointer { cache.keep("made \(index)", 1, $0) }
        }
        #expect(bytes("value-7").withUnsafeBufferPointer { cache.value(1, $0) } == "made 7")
        #expect(bytes("value-7").withUnsafeBufferPointer { cache.value(2, $0) } == nil)
        #expect(bytes("value-70000").withUnsafeBufferPointer { cache.value(1, $0) } == nil)
        let past = ByteKeyedCache<String>.capacity + 100
        #expect(bytes("value-\(past)").withUnsafeBufferPointer { cache.value(1, $0) } == nil)
        #expect([UInt8]().withUnsafeBufferPointer { cache.value(1, $0) } == nil)
    }
}
