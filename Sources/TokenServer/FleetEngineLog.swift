import FleetEngineAPI
import Foundation
import JSONValues
import ProviderVocabulary
import Synchronization

/// The emulator's calls written as Fleet Engine writes its own to Cloud Logging, one `LogEntry`
/// a line (`tokendash --fleet-engine-log FILE`): an export to practise `tokendash logs` on, whose
/// truth is known. The shape is the logging reference's (`logName`
/// `projects/P/logs/fleetengine.googleapis.com%2Fupdate_vehicle`, `labels.vehicle_id`,
/// `jsonPayload.@type` `type.googleapis.com/maps.fleetengine.v1.UpdateVehicleLog`, `request.header`,
/// `response` or `errorResponse` with `severity: ERROR`), and so is the omission: only calls whose
/// token authenticated are written, as Fleet Engine logs no authentication error (ODRD and LMFS
/// "Logging" guides).
public final class FleetEngineLog: Sendable {
    public let path: String
    /// Written out when this much is held, and when the server stops.
    static let bufferBytes = 64 << 10
    /// Written out too when the oldest line held is this old, so `tail -f` follows a slow run.
    static let bufferSeconds: TimeInterval = 1

    private struct State {
        var handle: FileHandle?
        var buffer = Data()
        var oldest: Date?
        var count = 0
        var failure: String?
    }

    // Guards the file and its buffer: concurrent calls write lines. A failed write is kept, once,
    // for `close` to say: the server goes on answering.
    private let state: Mutex<State>
    private let runID: String

    /// Creates (or truncates) `path`, readable by its owner alone: the export names the run's IDs.
    public init(path: String) throws(TokenServerError) {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            let folder = (path as NSString).deletingLastPathComponent
            let why =
                FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder)
                ? "cannot create it" : "no such folder"
            throw .cannotWriteLog(path: path, reason: why)
        }
        state = Mutex(State(handle: handle))
        // insertIds unique across runs, as Cloud Logging's are: one export may hold several runs.
        runID = String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 36)
    }

    /// One call, written if it authenticated. `status` is the HTTP status answered; `error` the
    /// gRPC status name and message of a refusal.
    func write(
        _ method: FleetEngineMethod, provider: String, id: String, at time: Date, status: Int,
        error: (code: String, message: String)?
    ) {
        state.withLock { state in
            guard state.handle != nil else { return }
            state.count += 1
            let line = Self.entry(
                method, provider: provider, id: id, at: time, status: status, error: error,
                insertID: "\(runID)-\(state.count)")
            state.buffer.append(contentsOf: line.utf8)
            state.buffer.append(UInt8(ascii: "\n"))
            if state.oldest == nil { state.oldest = Date() }
            if state.buffer.count >= Self.bufferBytes
                || Date().timeIntervalSince(state.oldest ?? Date()) >= Self.bufferSeconds
            {
                Self.drain(&state)
            }
        }
    }

    /// Writes out what is held.
    public func flush() { state.withLock { Self.drain(&$0) } }

    /// Writes out what is held and closes the file; a failure to write is returned, in words.
    public func close() -> String? {
        state.withLock { state in
            Self.drain(&state)
            try? state.handle?.close()
            state.handle = nil
            return state.failure
        }
    }

    private static func drain(_ state: inout State) {
        guard let handle = state.handle, !state.buffer.isEmpty else { return }
        do { try handle.write(contentsOf: state.buffer) } catch {
            state.failure = state.failure ?? "--fleet-engine-log: \(error.localizedDescription)"
        }
        state.buffer.removeAll(keepingCapacity: true)
        state.oldest = nil
    }

    // MARK: - The entry

    static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func entry(
        _ method: FleetEngineMethod, provider: String, id: String, at time: Date, status: Int,
        error: (code: String, message: String)?, insertID: String
    ) -> String {
        let kind = method.resourceKind
        let lastMile = kind.solution == .lastMile
        let stamp = time.formatted(timeFormat)
        var payload: JSONObject = [
            "@type": .string(
                lastMile
                    ? "type.googleapis.com/maps.fleetengine.delivery.log.v1.\(method.rawValue)Log"
                    : "type.googleapis.com/maps.fleetengine.v1.\(method.rawValue)Log"),
            "request": .object([
                "header": .object(header(for: kind)),
                requestField(kind): .string(id),
            ]),
        ]
        if let error {
            payload["errorResponse"] = .object([
                "code": .string(error.code), "httpStatusCode": .int(Int64(status)), "message": .string(error.message),
            ])
        } else {
            payload["response"] = .object(["name": .string(method.resource(provider: provider, id: id))])
        }
        var entry: JSONObject = [
            "insertId": .string(insertID),
            "logName": .string("projects/\(provider)/logs/fleetengine.googleapis.com%2F\(snakeCase(method.rawValue))"),
            "resource": .object([
                "type": .string(
                    lastMile ? "fleetengine.googleapis.com/DeliveryFleet" : "fleetengine.googleapis.com/Fleet"),
                "labels": .object([
                    "location": .string("global"), "resource_container": .string("projects/\(provider)"),
                ]),
            ]),
            "labels": .object([label(kind): .string(id)]),
            "timestamp": .string(stamp),
            "receiveTimestamp": .string(stamp),
            "jsonPayload": .object(payload),
        ]
        if error != nil { entry["severity"] = .string("ERROR") }
        return JSONValue.object(entry).description
    }

    /// The simulated SDK's `RequestHeader`: its kind, and tokendash as its version and platform
    /// (the logging reference's `PLATFORM_LOG_UNSPECIFIED`): it is no phone.
    static func header(for kind: ProviderKind) -> JSONObject {
        [
            "sdkType": .string(kind.spec.role == .driver ? "SDK_TYPE_LOG_DRIVER" : "SDK_TYPE_LOG_CONSUMER"),
            "platform": .string("PLATFORM_LOG_UNSPECIFIED"),
            "sdkVersion": .string("tokendash"),
        ]
    }

    /// The label naming the call's ID (ODRD "Logging" guide: `vehicle_id`, `trip_id`; LMFS:
    /// `delivery_vehicle_id`). A tracking ID has no label of its own there; `tracking_id` names it.
    static func label(_ kind: ProviderKind) -> String {
        switch kind {
        case .driver: "vehicle_id"
        case .consumer: "trip_id"
        case .deliveryDriver: "delivery_vehicle_id"
        case .deliveryConsumer: "tracking_id"
        }
    }

    static func requestField(_ kind: ProviderKind) -> String {
        switch kind {
        case .driver: "vehicleId"
        case .consumer: "tripId"
        case .deliveryDriver: "deliveryVehicleId"
        case .deliveryConsumer: "trackingId"
        }
    }

    /// `UpdateVehicle` → `update_vehicle`, as the log names go.
    static func snakeCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase, !out.isEmpty { out.append("_") }
            out.append(contentsOf: character.lowercased())
        }
        return out
    }
}
