import Foundation
import JSONValues
import ProviderVocabulary
import TestSupport
import Testing

@testable import TokenServer

/// The emulator's `--fleet-engine-log`: the calls it authenticates, written as Fleet Engine's own
/// Cloud Logging entries, and no others.
@Suite(.timeLimit(.minutes(15))) struct FleetEngineLogTests {
    /// One entry as the logging reference lays it out (keys in sorted order, as JSONValue writes).
    @Test func anEntryHasTheLoggingReferencesShape() throws {
        let line = FleetEngineLog.entry(
            .updateVehicle, provider: "my-project", id: "vehicle-1", at: Date(timeIntervalSince1970: 1_714_557_600.25),
            status: 200, error: nil, insertID: "run-1")
        #expect(
            line
                == #"{"insertId":"run-1","jsonPayload":{"@type":"type.googleapis.com/maps.fleetengine.v1.UpdateVehicleLog","#
                + #""request":{"header":{"platform":"PLATFORM_LOG_UNSPECIFIED","sdkType":"SDK_TYPE_LOG_DRIVER","#
                + #""sdkVersion":"tokendash"},"vehicleId":"vehicle-1"},"response":{"name":"providers/my-project/vehicles/vehicle-1"}},"#
                + #""labels":{"vehicle_id":"vehicle-1"},"logName":"projects/my-project/logs/fleetengine.googleapis.com%2Fupdate_vehicle","#
                + #""receiveTimestamp":"2024-05-01T10:00:00.250Z","resource":{"labels":{"location":"global","#
                + #""resource_container":"projects/my-project"},"type":"fleetengine.googleapis.com/Fleet"},"#
                + #""timestamp":"2024-05-01T10:00:00.250Z"}"#)
        let refused = FleetEngineLog.entry(
            .getDeliveryVehicle, provider: "p", id: "van-1", at: Date(timeIntervalSince1970: 0), status: 404,
            error: (code: "NOT_FOUND", message: "gone"), insertID: "run-2")
        let json = try JSONValue.decode(Data(refused.utf8))
        #expect(json["severity"]?.stringValue == "ERROR")
        #expect(json["resource"]?["type"]?.stringValue == "fleetengine.googleapis.com/DeliveryFleet")
        #expect(
            json["jsonPayload"]?["@type"]?.stringValue
                == "type.googleapis.com/maps.fleetengine.delivery.log.v1.GetDeliveryVehicleLog")
        #expect(json["jsonPayload"]?["errorResponse"]?["httpStatusCode"]?.numberValue == 404)
        #expect(json["labels"]?["delivery_vehicle_id"]?.stringValue == "van-1")
        #expect(json["jsonPayload"]?["response"] == nil)
    }

    /// Fleet Engine logs no authentication error (ODRD and LMFS "Logging" guides): a forged or
    /// missing token leaves no line; an authorization refusal and a missing resource do.
    @Test func onlyAuthenticatedCallsAreWritten() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-fe-\(UUID().uuidString).jsonl"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await EmbeddedTokenServer(
            configuration: TokenServerConfiguration(fleetEngineLog: path), key: SharedKey.key)
        let s = RunningServer(server: server, base: try await server.start())
        let token = try await FleetEngineEmulatorTests.routeToken(s, .driver, "vehicle-1")
        _ = try await FleetEngineEmulatorTests.routeToken(s, .driver, "vehicle-2")
        let ghost = try await server.minter.mint(.driver, id: "ghost-1", lifetime: 600)
        let forged = TestJWT.make(
            kind: .driver, id: "vehicle-1", lifetime: 600, account: TokenServerConfiguration.defaultIssuer)
        let statuses = [
            try await FleetEngineEmulatorTests.call(s, .getVehicle, id: "vehicle-1", token: token).httpStatus,
            try await FleetEngineEmulatorTests.call(s, .getVehicle, id: "vehicle-2", token: token).httpStatus,
            try await FleetEngineEmulatorTests.call(s, .getVehicle, id: "ghost-1", token: ghost.jwt).httpStatus,
            try await FleetEngineEmulatorTests.call(s, .getVehicle, id: "vehicle-1", token: forged).httpStatus,
            try await FleetEngineEmulatorTests.call(s, .getVehicle, id: "vehicle-1", token: "").httpStatus,
        ]
        #expect(statuses == [200, 403, 404, 401, 401])
        await s.stop()
        #expect(server.fleetEngineLog?.close() == nil)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let written = try lines.map { try JSONValue.decode(Data($0.utf8)) }
        #expect(
            written.map {
                [$0["labels"]?["vehicle_id"]?.stringValue, $0["jsonPayload"]?["errorResponse"]?["code"]?.stringValue]
            }
                == [["vehicle-1", nil], ["vehicle-2", "PERMISSION_DENIED"], ["ghost-1", "NOT_FOUND"]])
        #expect(Set(written.compactMap { $0["insertId"]?.stringValue }).count == 3)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the export names the run's IDs: its owner's alone")
    }

    @Test func aLogInAFolderThatDoesNotExistIsOneLine() async throws {
        await #expect(throws: TokenServerError.cannotWriteLog(path: "/nonexistent/fe.jsonl", reason: "no such folder"))
        {
            _ = try await EmbeddedTokenServer(
                configuration: TokenServerConfiguration(fleetEngineLog: "/nonexistent/fe.jsonl"), key: SharedKey.key)
        }
    }
}
