/// One Fleet Engine call as Cloud Logging recorded it: a `LogEntry`
/// (https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry) read down to what the
/// per-ID tables need. Built by `LogEntryDecoder` from any export shape.
public struct LogEntry: Sendable, Equatable {
    /// `insertId`: the same one seen twice is one entry (LogEntry reference: "Cloud Logging
    /// removes duplicate entries with the same timestamp and insertId").
    public var insertID: String?
    /// The method, from `logName` ("projects/P/logs/fleetengine.googleapis.com%2Fupdate_vehicle")
    /// or, when that is missing, from the payload's `@type` ("…UpdateVehicleLog" → update_vehicle).
    public var method: String?
    /// `timestamp`, else `receiveTimestamp`.
    public var time: LogInstant
    /// `severity`: absent on success, `ERROR` on a failed call (ODRD and LMFS "Logging" guides).
    public var severity: String?
    /// `jsonPayload.@type` as written, e.g. "type.googleapis.com/maps.fleetengine.v1.UpdateVehicleLog".
    public var payloadType: String?
    /// Every ID the entry's labels name, in label order; several trips may share one label.
    public var ids: [LoggedID]
    /// `jsonPayload.errorResponse`, or a bare `severity: ERROR`.
    public var error: LoggedError?
    /// `jsonPayload.request.header`: the calling SDK, absent on a call from the customer's server.
    public var header: SDKHeader?
    /// `split` of an entry over 256 KB split into several
    /// (https://developers.google.com/maps/documentation/mobility/operations/cloud-logging/split-logs).
    public var split: SplitMark?
    /// A restricted-use entry (`@type` ending in `RestrictedLog`) and its `parentInsertId`: the
    /// default entry it belongs to is the call (ODRD "Logging" guide, "Get a full view by joining
    /// restricted and unrestricted logs").
    public var isRestricted: Bool
    public var parentInsertID: String?

    public init(
        insertID: String? = nil, method: String? = nil, time: LogInstant, severity: String? = nil,
        payloadType: String? = nil, ids: [LoggedID] = [], error: LoggedError? = nil, header: SDKHeader? = nil,
        split: SplitMark? = nil, isRestricted: Bool = false, parentInsertID: String? = nil
    ) {
        self.insertID = insertID
        self.method = method
        self.time = time
        self.severity = severity
        self.payloadType = payloadType
        self.ids = ids
        self.error = error
        self.header = header
        self.split = split
        self.isRestricted = isRestricted
        self.parentInsertID = parentInsertID
    }
}

/// The kinds of ID a Fleet Engine entry's labels name (ODRD "Logging" guide: `vehicle_id`,
/// `trip_id`; LMFS "Logging" guide: `delivery_vehicle_id`, `task_id`).
public enum LoggedIDKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case vehicle
    case trip
    case deliveryVehicle = "delivery_vehicle"
    case task

    /// The label naming this kind, normalized (`LogKeys`).
    var labelKey: String {
        switch self {
        case .vehicle: "vehicleid"
        case .trip: "tripid"
        case .deliveryVehicle: "deliveryvehicleid"
        case .task: "taskid"
        }
    }

    /// A device runs the Driver SDK as this ID: its header and cadence are one phone's.
    public var isDevice: Bool { self == .vehicle || self == .deliveryVehicle }

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

public struct LoggedID: Sendable, Hashable, Comparable {
    public var kind: LoggedIDKind
    public var id: String

    public init(_ kind: LoggedIDKind, _ id: String) {
        self.kind = kind
        self.id = id
    }

    public static func < (a: Self, b: Self) -> Bool { (a.kind, a.id) < (b.kind, b.id) }
}

/// `jsonPayload.errorResponse`: `code` a canonical gRPC code name ("NOT_FOUND"),
/// `httpStatusCode` (404), `message` (Fleet Engine logging reference, `ErrorResponseLog`).
public struct LoggedError: Sendable, Equatable {
    public var code: String
    public var httpStatus: Int?
    public var message: String?

    public init(code: String, httpStatus: Int? = nil, message: String? = nil) {
        self.code = code
        self.httpStatus = httpStatus
        self.message = message
    }
}

/// `request.header` (Fleet Engine `RequestHeader`,
/// https://developers.google.com/maps/documentation/mobility/fleet-engine/reference/trips/rest/v1/RequestHeader).
/// Enum values are kept without their prefix, so the logging reference's `PLATFORM_LOG_ANDROID`
/// and the RPC's `ANDROID` read alike.
public struct SDKHeader: Sendable, Hashable {
    public var sdkVersion: String?
    public var osVersion: String?
    public var platform: String?
    public var sdkType: String?
    public var deviceModel: String?
    public var manufacturer: String?
    public var mapsSDKVersion: String?
    public var navSDKVersion: String?

    public init(
        sdkVersion: String? = nil, osVersion: String? = nil, platform: String? = nil, sdkType: String? = nil,
        deviceModel: String? = nil, manufacturer: String? = nil, mapsSDKVersion: String? = nil,
        navSDKVersion: String? = nil
    ) {
        self.sdkVersion = sdkVersion
        self.osVersion = osVersion
        self.platform = platform
        self.sdkType = sdkType
        self.deviceModel = deviceModel
        self.manufacturer = manufacturer
        self.mapsSDKVersion = mapsSDKVersion
        self.navSDKVersion = navSDKVersion
    }

    /// A header names a device when it carries what only an SDK fills in: "a call from the
    /// customer's server has no sdkVersion" (issue 60; `RequestHeader.sdkVersion`: "Version of
    /// the calling SDK, if applicable").
    public var namesDevice: Bool { sdkVersion != nil || platform != nil || sdkType != nil }
}

/// `split` of a split entry: every part has the same `uid` and `totalSplits`; `index` counts from 0.
public struct SplitMark: Sendable, Hashable {
    public var uid: String
    public var index: Int
    public var total: Int

    public init(uid: String, index: Int, total: Int) {
        self.uid = uid
        self.index = index
        self.total = total
    }
}
