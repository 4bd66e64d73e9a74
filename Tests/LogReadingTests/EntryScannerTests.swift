import Foundation
import JSONValues
import ProviderVocabulary
import Testing

@testable import LogReading

/// The reader builds only what it reads of an entry, and still checks all of it as JSON: the
/// fleet's entries read the same as when decoded whole, and damage anywhere is named.
@Suite(.timeLimit(.minutes(15)))
struct EntryScannerTests {
    static func scan(_ text: String) throws(EntryScanner.Failure) -> JSONValue {
        try Array(text.utf8).withUnsafeBufferPointer { (bytes) throws(EntryScanner.Failure) in
            try EntryScanner.scan(bytes)
        }
    }

    static func failure(_ text: String) -> EntryScanner.Failure? {
        do {
            _ = try scan(text)
            return nil
        } catch {
            return error
        }
    }

    /// Every entry of the fixture fleet, in Cloud Logging's spelling and BigQuery's lowercased
    /// one, decodes to the same `LogEntry` from the scanned value as from the whole value.
    @Test func theFleetReadsAsWhenDecodedWhole() throws {
        let entries = ExportFixture.fleet + ExportFixture.fleet.map { ExportFixture.lowered($0) as! [String: Any] }
        for entry in entries {
            let bytes = ExportFixture.json(entry)
            let whole = LogEntryDecoder.decode(try JSONValue.decode(Data(bytes)))
            let scanned = LogEntryDecoder.decode(
                try bytes.withUnsafeBufferPointer { (b) throws(EntryScanner.Failure) in try EntryScanner.scan(b) })
            #expect(scanned == whole, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func theRequestAndResponseAreCheckedButNotBuilt() throws {
        let value = try Self.scan(
            """
            {"insertId": "a", "somethingNew": {"deep": [1, 2.5e3, "x"]},
             "jsonPayload": {"@type": "t.UpdateVehicleLog", "request": {"header": {"sdkVersion": "5.0.0"},
              "vehicle": {"lastLocation": {"latitude": 37.42, "longitude": -122.08}}},
              "response": {"name": "providers/p/vehicles/v"}, "errorResponse": {"code": "NOT_FOUND"}}}
            """)
        guard case .object(let top) = value, case .object(let payload)? = top["jsonPayload"] else {
            Issue.record("not an object: \(value)")
            return
        }
        // An unknown top-level field keeps its name (so it is counted), not its value.
        #expect(top.keys == ["insertId", "somethingNew", "jsonPayload"])
        #expect(top["somethingNew"] == .null)
        #expect(payload.keys == ["@type", "request", "errorResponse"])
        #expect(payload["request"] == .object(["header": .object(["sdkVersion": .string("5.0.0")])]))
        #expect(payload["errorResponse"] == .object(["code": .string("NOT_FOUND")]))
    }

    @Test func damageInAPartNotBuiltIsStillNamed() {
        let cases: [(String, String)] = [
            (#"{"insertId": "a", "jsonPayload": {"response": {"x": [1, 2,]}}}"#, "unexpected ']'"),
            (#"{"insertId": "a", "jsonPayload": {"response": {"x" 1}}}"#, "no ':' after an object key"),
            (#"{"insertId": "a", "jsonPayload": {"response": {"x": 01}}}"#, "no ',' or '}' after an object member"),
            (#"{"insertId": "a", "jsonPayload": {"response": {"x": -}}}"#, "a '-' without digits"),
            (#"{"insertId": "a", "jsonPayload": {"response": {"x": 1.}}}"#, "a '.' without digits after it"),
            (#"{"insertId": "a", "jsonPayload": {"response": {"x": "\q"}}}"#, "\\'q' is no escape"),
            (
                #"{"insertId": "a", "jsonPayload": {"response": {"x": "\u12G4"}}}"#,
                "a \\u escape has 'G', not a hex digit"
            ),
            (#"{"insertId": "a", "jsonPayload": {"response": {"x": tru}}}"#, "unexpected 't'"),
            ("{\"insertId\": \"a\", \"x\": \"tab\there\"}", "a raw control byte in a string"),
            (#"{"insertId": "a"} {"#, "more after the value"),
            (#"{"insertId": "a", "x": {"#, "an object key is not a string"),
            (#"{"insertId": "a", "x": "open"#, "a string is not closed"),
        ]
        for (text, reason) in cases {
            #expect(Self.failure(text)?.reason == reason, "\(text)")
        }
    }

    @Test func escapesInAFieldReadAreDecoded() throws {
        let value = try Self.scan(#"{"insertId": "caf\u00e9 \ud83d\ude95 \ud800 \"q\" \\ \/ \n"}"#)
        #expect(value == .object(["insertId": .string("café 🚕 \u{FFFD} \"q\" \\ / \n")]))
    }

    @Test func numbersKeepIntegersApartFromFractions() throws {
        let value = try Self.scan(#"{"labels": {"a": 12, "b": -0, "c": 1.5, "d": 1e3, "e": 99999999999999999999}}"#)
        #expect(
            value
                == .object([
                    "labels": .object([
                        "a": .int(12), "b": .int(0), "c": .double(1.5), "d": .double(1000), "e": .double(1e20),
                    ])
                ]))
    }

    @Test func nestingPastTheLimitIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(Self.failure(#"{"x": \#(deep)}"#)?.reason == "nested deeper than \(EntryScanner.depthLimit)")
    }

    @Test func bytesThatAreNotUTF8ReadAsReplacementCharacters() throws {
        var bytes = Array(#"{"insertId": "a"#.utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array(#""}"#.utf8)
        let value = try bytes.withUnsafeBufferPointer { (b) throws(EntryScanner.Failure) in try EntryScanner.scan(b) }
        #expect(value == .object(["insertId": .string("a\u{FFFD}\u{FFFD}")]))
    }

    /// A logName's own slash, `%2F` in either case, and nothing else; a `%` at the end stays.
    @Test(arguments: [
        (
            "projects/p/logs/fleetengine.googleapis.com%2Fupdate_vehicle",
            "projects/p/logs/fleetengine.googleapis.com/update_vehicle"
        ),
        ("a%2fb%2Fc", "a/b/c"), ("%2", "%2"), ("%", "%"), ("x%2", "x%2"), ("%2F", "/"), ("%3F%2F", "%3F/"),
        ("plain", "plain"),
    ])
    func aLogNamesSlashIsDecoded(text: String, decoded: String) {
        #expect(LogKeys.slashesDecoded(text) == decoded)
    }

    /// Keys normalized byte by byte: case, `_`, `@` and `-` left out; bytes that are not UTF-8 repaired.
    @Test func keysAreNormalizedFromTheirBytes() {
        #expect(LogKeys.normalized("insertId") == "insertid")
        #expect(LogKeys.normalized("@type") == "type")
        #expect(LogKeys.normalized("JSON_PAYLOAD-x") == "jsonpayloadx")
        #expect(LogKeys.normalized("already") == "already")
        #expect(LogKeys.normalized("aVeryLongKeyNameThatIsNotInline_AtAll") == "averylongkeynamethatisnotinlineatall")
        let invalid: [UInt8] = [0x41, 0xFF, 0x42]
        #expect(invalid.withUnsafeBufferPointer { LogKeys.normalized(bytes: $0) } == "a\u{FFFD}b")
    }
}
