import CompressNIO
import Foundation
import LogReading
import NIOCore

/// Fleet Engine log entries built from the documented field names (LogEntry reference; the ODRD
/// and LMFS "Logging" guides; Fleet Engine's RequestHeader), and the same entries written in each
/// shape an export comes in.
enum ExportFixture {
    /// 2024-05-01T10:00:00Z.
    static let base = LogInstant(microseconds: 1_714_557_600 * 1_000_000)

    static func time(_ seconds: Double) -> String { base.adding(seconds: seconds).rfc3339 }

    /// One Cloud Logging `LogEntry` of a Fleet Engine call, as `gcloud logging read --format=json`
    /// writes it.
    static func entry(
        insertID: String, at seconds: Double, method: String = "update_vehicle", type: String = "UpdateVehicleLog",
        labels: [String: String] = ["vehicle_id": "vehicle-1"], header: [String: Any]? = androidHeader,
        error: [String: Any]? = nil, split: [String: Any]? = nil, extra: [String: Any] = [:]
    ) -> [String: Any] {
        var payload: [String: Any] = [
            "@type": "type.googleapis.com/maps.fleetengine.v1.\(type)",
            "request": header.map { ["header": $0, "vehicleId": "x"] } ?? ["vehicleId": "x"],
        ]
        if let error { payload["errorResponse"] = error } else { payload["response"] = ["name": "x"] }
        var entry: [String: Any] = [
            "insertId": insertID,
            "logName": "projects/demo-project/logs/fleetengine.googleapis.com%2F\(method)",
            "resource": ["type": "fleetengine.googleapis.com/Fleet", "labels": ["location": "global"]],
            "labels": labels,
            "timestamp": time(seconds),
            "receiveTimestamp": time(seconds + 0.1),
            "jsonPayload": payload,
        ]
        if error != nil { entry["severity"] = "ERROR" }
        if let split { entry["split"] = split }
        for (key, value) in extra { entry[key] = value }
        return entry
    }

    static var androidHeader: [String: Any] {
        [
            "sdkVersion": "5.0.0", "osVersion": "14", "platform": "PLATFORM_LOG_ANDROID",
            "sdkType": "SDK_TYPE_LOG_DRIVER",
            "deviceModel": "Pixel 8", "manufacturer": "Google", "languageCode": "en-US", "regionCode": "US",
        ]
    }

    static var iosHeader: [String: Any] {
        [
            "sdkVersion": "6.1.0", "osVersion": "17.4", "platform": "PLATFORM_LOG_IOS",
            "sdkType": "SDK_TYPE_LOG_DRIVER",
            "deviceModel": "iPhone15,2",
        ]
    }

    /// A small fleet: vehicle-1 (Android, every 5 s, a 5-minute silence, one NOT_FOUND) serving
    /// trip-1 and trip-2; vehicle-2 (iOS, every 10 s, one PERMISSION_DENIED); a server-side
    /// create_trip with no header.
    static var fleet: [[String: Any]] {
        var entries: [[String: Any]] = []
        var n = 0
        func next() -> String {
            n += 1
            return "id-\(n)"
        }
        for i in 0..<24 {  // 0 … 115 s
            entries.append(
                entry(
                    insertID: next(), at: Double(i) * 5,
                    labels: ["vehicle_id": "vehicle-1", "trip_id": "trip-1,trip-2"]))
        }
        for i in 0..<24 {  // 415 … 530 s: a 300 s gap
            entries.append(entry(insertID: next(), at: 415 + Double(i) * 5, labels: ["vehicle_id": "vehicle-1"]))
        }
        entries.append(
            entry(
                insertID: next(), at: 533, method: "get_vehicle", type: "GetVehicleLog",
                error: ["code": "NOT_FOUND", "httpStatusCode": 404, "message": "vehicle not found"]))
        for i in 0..<30 {
            entries.append(
                entry(insertID: next(), at: 2 + Double(i) * 10, labels: ["vehicle_id": "vehicle-2"], header: iosHeader))
        }
        entries.append(
            entry(
                insertID: next(), at: 301, labels: ["vehicle_id": "vehicle-2"], header: iosHeader,
                error: ["code": "PERMISSION_DENIED", "httpStatusCode": 403, "message": "denied"]))
        entries.append(
            entry(
                insertID: next(), at: 1, method: "create_trip", type: "CreateTripLog", labels: ["trip_id": "trip-1"],
                header: nil))
        return entries
    }

    // MARK: shapes

    static func json(_ value: Any, pretty: Bool = false) -> [UInt8] {
        let options: JSONSerialization.WritingOptions = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
        return [UInt8](try! JSONSerialization.data(withJSONObject: value, options: options))
    }

    /// `gcloud logging read --format=json`: a pretty-printed array, newest first.
    static func array(_ entries: [[String: Any]]) -> [UInt8] { json(Array(entries.reversed()), pretty: true) }

    /// The Logs Explorer's download: an array on one line.
    static func oneLineArray(_ entries: [[String: Any]]) -> [UInt8] { json(entries) }

    /// A sink's file, `jq -c`: one entry a line.
    static func lines(_ entries: [[String: Any]]) -> [UInt8] {
        entries.flatMap { json($0) + [0x0A] }
    }

    /// Pretty objects one after another, as `jq .` prints them.
    static func concatenated(_ entries: [[String: Any]]) -> [UInt8] { entries.flatMap { json($0, pretty: true) } }

    /// fleet-debugger's dataset: the entries under `rawLogs` beside its own fields.
    static func rawLogs(_ entries: [[String: Any]]) -> [UInt8] {
        json(["APIKEY": "key", "vehicle": "", "projectId": "demo-project", "solutionType": "ODRD", "rawLogs": entries])
    }

    /// A BigQuery sink's rows exported as JSON lines: keys lowercased, `@type` as `_type`, the
    /// payload in a column named for its type, timestamps as {"value": "YYYY-MM-DD HH:MM:SS UTC"}.
    static func bigQuery(_ entries: [[String: Any]]) -> [UInt8] {
        entries.flatMap { entry -> [UInt8] in
            var row: [String: Any] = [:]
            for (key, value) in entry {
                switch key {
                case "jsonPayload":
                    let payload = value as! [String: Any]
                    let type = (payload["@type"] as! String).split(separator: ".").last!.lowercased()
                    row["jsonpayload_v1_\(type)"] = lowered(payload)
                case "timestamp", "receiveTimestamp":
                    let instant = LogInstant.parse(value as! String)!
                    row[key.lowercased()] = ["value": instant.bigQueryText]
                default:
                    row[key.lowercased()] = lowered(value)
                }
            }
            return json(row) + [0x0A]
        }
    }

    static func lowered(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var out: [String: Any] = [:]
            for (key, inner) in object { out[key == "@type" ? "_type" : key.lowercased()] = lowered(inner) }
            return out
        }
        if let list = value as? [Any] { return list.map(lowered) }
        return value
    }

    static func gzip(_ bytes: [UInt8]) -> [UInt8] {
        var buffer = ByteBuffer(bytes: bytes)
        let compressed = try! buffer.compress(with: .gzip)
        return Array(compressed.readableBytesView)
    }

    /// Reads `bytes` as one input named "export.json".
    static func read(
        _ bytes: [UInt8], chunkSize: Int = 64 << 10, maxObjectBytes: Int? = nil, readsInPlace: Bool = true
    ) -> ExportReader {
        var reader = ExportReader(
            maxObjectBytes: maxObjectBytes ?? EntrySplitter.defaultMaxObjectBytes, readsInPlace: readsInPlace)
        var source = MemoryChunkSource(bytes, chunkSize: chunkSize)
        reader.read(&source, name: "export.json")
        return reader
    }
}

extension LogInstant {
    var rfc3339: String {
        let text = description  // milliseconds: enough for the fixture's times
        return text
    }

    /// "2024-05-01 10:00:00.000000 UTC", as BigQuery writes a TIMESTAMP.
    var bigQueryText: String {
        let text = description  // 2024-05-01T10:00:00.000Z
        return text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "000 UTC")
    }
}
