import Foundation
import JSONValues
import ProviderVocabulary

/// Reads one decoded JSON object of an export as a Fleet Engine `LogEntry`, whatever the shape
/// wrote it as (Cloud Logging's JSON, a BigQuery row, fleet-debugger's lowercased dataset).
/// Names what it does not know (fields, `@type`s) instead of failing on it. The definition of
/// what an entry reads as: `LogEntryByteDecoder` reads the same from the bytes in one pass.
public enum LogEntryDecoder {
    public enum Outcome: Sendable, Equatable {
        case entry(LogEntry, unknownFields: [String], unknownType: String?)
        case skipped(SkipReason, String)
    }

    /// Top-level LogEntry fields (https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry),
    /// normalized; a BigQuery payload column ("jsonpayload_v1_updatevehiclelog") is matched by prefix.
    static let knownFields: Set<String> = [
        "insertid", "logname", "resource", "labels", "timestamp", "receivetimestamp", "severity", "jsonpayload",
        "protopayload", "textpayload", "split", "trace", "spanid", "tracesampled", "operation", "sourcelocation",
        "httprequest", "errorgroups", "apphub", "apphubdestination", "apphubsource", "otel",
        // fleet-debugger's older datasets: `origLog.timestamp || origLog.servertime` (src/TripLogs.js).
        "servertime",
    ]

    /// RequestHeader fields (Fleet Engine reference, `RequestHeader`), normalized.
    static let knownHeaderFields: Set<String> = [
        "languagecode", "regioncode", "sdkversion", "osversion", "devicemodel", "sdktype", "mapssdkversion",
        "navsdkversion", "platform", "manufacturer", "androidapilevel", "traceid",
    ]

    /// The top-level fields the reader reads, found in one pass over the entry's members.
    private struct TopFields {
        var insertID, logName, timestamp, receiveTimestamp, serverTime, severity, labels, split,
            parentInsertID, resource: JSONValue?
    }

    // Key paths are immutable values; WritableKeyPath is not marked Sendable in Swift 6.3.
    nonisolated(unsafe) private static let topFieldPaths: [String: WritableKeyPath<TopFields, JSONValue?>] = [
        "insertid": \.insertID, "logname": \.logName, "timestamp": \.timestamp,
        "receivetimestamp": \.receiveTimestamp, "servertime": \.serverTime, "severity": \.severity,
        "labels": \.labels, "split": \.split, "parentinsertid": \.parentInsertID, "resource": \.resource,
    ]

    /// Fields no other kind of log object has, taken as the sign of an entry.
    private static let entryMarkers: Set<String> = ["insertid", "logname", "timestamp", "receivetimestamp"]

    public static func decode(_ value: JSONValue) -> Outcome {
        guard case .object(let object) = value else {
            return .skipped(.notAnEntry, "a JSON \(value.typeName), not a LogEntry object")
        }
        var payload: JSONValue?
        var payloadColumn: String?
        var unknown: [String] = []
        var looksLikeEntry = false
        var top = TopFields()
        for member in object {
            let key = LogKeys.normalized(member.key)
            switch key {
            case "jsonpayload":
                payload = member.value
                looksLikeEntry = true
            case _ where topFieldPaths[key] != nil:
                if let path = topFieldPaths[key], top[keyPath: path] == nil { top[keyPath: path] = member.value }
                if entryMarkers.contains(key) { looksLikeEntry = true }
            case _ where key.hasPrefix("jsonpayload"):
                // BigQuery: one column per payload type, "jsonpayload_v1_updatevehiclelog"
                // (fleet-debugger src/TripLogs.js `processApiCall` finds the API in the key).
                if case .object = member.value {
                    payload = member.value
                    payloadColumn = key
                }
                looksLikeEntry = true
            case _ where knownFields.contains(key): break
            default: unknown.append(member.key)
            }
        }
        guard looksLikeEntry else {
            let keys = object.members.prefix(5).map(\.key).joined(separator: ", ")
            return .skipped(.notAnEntry, "an object with no LogEntry field (keys: \(keys.isEmpty ? "none" : keys))")
        }

        let logName = LogKeys.text(top.logName)
        let resourceType = LogKeys.text(LogKeys.path(top.resource, "type"))
        if let service = foreignService(logName: logName, resourceType: resourceType) {
            return .skipped(.otherService, "an entry of \(service)")
        }

        let timeText = LogKeys.text(top.timestamp) ?? LogKeys.text(top.receiveTimestamp) ?? LogKeys.text(top.serverTime)
        guard let timeText else { return .skipped(.noTimestamp, "an entry without timestamp or receiveTimestamp") }
        guard let time = LogInstant.parse(timeText) else {
            return .skipped(.noTimestamp, "timestamp \"\(timeText.prefix(40))\" is not a time")
        }

        let payloadType = LogKeys.text(LogKeys.path(payload, "type"))
        var entry = LogEntry(time: time)
        entry.insertID = LogKeys.text(top.insertID)
        entry.payloadType = payloadType
        entry.method = method(logName: logName, payloadType: payloadType, payloadColumn: payloadColumn)
        entry.severity = severity(top.severity)
        entry.ids = ids(top.labels)
        entry.error = error(payload: payload, severity: entry.severity)
        let headerValue = LogKeys.path(payload, "request", "header")
        entry.header = header(headerValue)
        if case .object(let fields)? = headerValue {
            for member in fields where !knownHeaderFields.contains(LogKeys.normalized(member.key)) {
                unknown.append("request.header.\(member.key)")
            }
        }
        if let split = top.split, let uid = LogKeys.text(LogKeys.path(split, "uid")) {
            entry.split = SplitMark(
                uid: uid, index: Int(LogKeys.text(LogKeys.path(split, "index")) ?? "") ?? 0,
                total: Int(LogKeys.text(LogKeys.path(split, "totalsplits")) ?? "") ?? 0)
        }
        // fleet-debugger: `log.jsonPayload["@type"].includes("Restricted")` and
        // `log.jsonPayload.parentInsertId` (src/localStorage.js, `ensureCorrectFormat`).
        let typeName = payloadType.map(lastComponent) ?? payloadColumn ?? ""
        entry.isRestricted = isRestricted(typeName: typeName)
        entry.parentInsertID =
            LogKeys.text(LogKeys.path(payload, "parentinsertid"))
            ?? LogKeys.text(top.parentInsertID)
        if entry.parentInsertID != nil && payloadType == nil { entry.isRestricted = true }

        var unknownType: String?
        if let payloadType, !FleetEngineMethods.isKnownLogType(lastComponent(payloadType)) {
            unknownType = payloadType
        }
        return .entry(entry, unknownFields: unknown, unknownType: unknownType)
    }

    /// The service an entry belongs to when it is not Fleet Engine, or nil. Fleet Engine's entries
    /// have `logName` "projects/P/logs/fleetengine.googleapis.com%2F<method>" and `resource.type`
    /// "fleetengine.googleapis.com/Fleet" or "…/DeliveryFleet" (ODRD and LMFS "Logging" guides).
    static func foreignService(logName: String?, resourceType: String?) -> String? {
        if let logName {
            let decoded = LogKeys.slashesDecoded(logName)
            if LogKeys.after("fleetengine.googleapis.com", in: decoded) == nil {
                let tail = decoded.split(separator: "/logs/", maxSplits: 1).last.map(String.init) ?? decoded
                return "log \(tail.prefix(80))"
            }
            return nil
        }
        if let resourceType, !resourceType.hasPrefix("fleetengine.googleapis.com") {
            return "resource \(resourceType.prefix(80))"
        }
        return nil
    }

    /// The method: `logName`'s last part, else the `@type`'s name, else the BigQuery column's.
    static func method(logName: String?, payloadType: String?, payloadColumn: String?) -> String? {
        if let logName, let method = method(ofLogName: logName) { return method }
        if let payloadType, let method = FleetEngineMethods.method(ofLogType: lastComponent(payloadType)) {
            return method
        }
        if let payloadColumn, let method = FleetEngineMethods.method(ofColumn: payloadColumn) { return method }
        return nil
    }

    /// The method a `logName` names after "fleetengine.googleapis.com/" (its slash written `%2F`), or nil.
    static func method(ofLogName logName: String) -> String? {
        guard let method = LogKeys.after("fleetengine.googleapis.com/", in: LogKeys.slashesDecoded(logName)),
            !method.isEmpty
        else { return nil }
        return String(method)
    }

    /// A restricted-use entry's payload type or BigQuery column ends so (ODRD "Logging" guide).
    static func isRestricted(typeName: String) -> Bool { typeName.lowercased().hasSuffix("restrictedlog") }

    /// What follows the last `.` or `/`: "UpdateVehicleLog" of "type.googleapis.com/maps.fleetengine.v1.UpdateVehicleLog".
    static func lastComponent(_ type: String) -> String {
        let isSeparator = { (byte: UInt8) in byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/") }
        let utf8 = type.utf8
        var end = utf8.endIndex
        while end > utf8.startIndex, isSeparator(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        // Nothing but separators: the whole, as splitting it found no part.
        guard end > utf8.startIndex else { return type }
        let start = utf8[..<end].lastIndex(where: isSeparator).map { utf8.index(after: $0) } ?? utf8.startIndex
        return String(type[start..<end])
    }

    /// Cloud Logging's `LogSeverity` names; a number (as a BigQuery row may hold) by its value.
    static func severity(_ value: JSONValue?) -> String? {
        guard let text = LogKeys.text(value) else { return nil }
        if let number = Int(text) {
            switch number {
            case 800...: return "EMERGENCY"
            case 700..<800: return "ALERT"
            case 600..<700: return "CRITICAL"
            case 500..<600: return "ERROR"
            case 400..<500: return "WARNING"
            case 300..<400: return "NOTICE"
            case 200..<300: return "INFO"
            case 100..<200: return "DEBUG"
            default: return "DEFAULT"
            }
        }
        return text.uppercased()
    }

    /// Every ID the labels name; `trip_id` may list several, comma-separated (issue 60, from the
    /// ODRD "Logging" guide's labels). Labels that name no ID (`environment`) stay with the entry.
    static func ids(_ labels: JSONValue?) -> [LoggedID] {
        guard case .object(let object)? = LogKeys.unwrapped(labels) else { return [] }
        var found: [LoggedID] = []
        for member in object {
            let key = LogKeys.normalized(member.key)
            guard let kind = LoggedIDKind.allCases.first(where: { $0.labelKey == key }),
                let text = LogKeys.text(member.value)
            else { continue }
            appendIDs(of: text, kind: kind, to: &found)
        }
        return found
    }

    /// The IDs one label's text lists, comma-separated, each once.
    static func appendIDs(of text: String, kind: LoggedIDKind, to found: inout [LoggedID]) {
        for part in text.split(separator: ",") {
            var id = part
            while id.first == " " || id.first == "\t" { id.removeFirst() }
            while id.last == " " || id.last == "\t" { id.removeLast() }
            let logged = LoggedID(kind, String(id))
            if !id.isEmpty, !found.contains(logged) { found.append(logged) }
        }
    }

    /// `errorResponse` {code, httpStatusCode, message}; a bare ERROR (or worse) severity without one
    /// is an error of code UNKNOWN.
    static func error(payload: JSONValue?, severity: String?) -> LoggedError? {
        if let response = LogKeys.path(payload, "errorresponse"), case .object = response {
            return error(
                code: LogKeys.text(LogKeys.unwrapped(LogKeys.path(response, "code"))),
                httpStatus: LogKeys.text(LogKeys.path(response, "httpstatuscode")),
                message: LogKeys.text(LogKeys.path(response, "message")))
        }
        return error(severity: severity)
    }

    /// An `errorResponse`'s fields as written: a code by number named, no code UNKNOWN.
    static func error(code: String?, httpStatus: String?, message: String?) -> LoggedError {
        var code = code ?? "UNKNOWN"
        if let number = Int(code) { code = grpcCodeName(number) }
        return LoggedError(code: code, httpStatus: httpStatus.flatMap { Int($0) }, message: message)
    }

    /// The error a severity of ERROR or worse says without an `errorResponse`.
    static func error(severity: String?) -> LoggedError? {
        guard let severity, ["ERROR", "CRITICAL", "ALERT", "EMERGENCY"].contains(severity) else { return nil }
        return LoggedError(code: "UNKNOWN")
    }

    /// gRPC's canonical codes by number (google.rpc.Code), for an `errorResponse.code` written as one.
    static func grpcCodeName(_ number: Int) -> String {
        let names = [
            "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
            "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
            "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
        ]
        return names.indices.contains(number) ? names[number] : "CODE_\(number)"
    }

    static func header(_ value: JSONValue?) -> SDKHeader? {
        guard case .object(let members)? = value else { return nil }
        // One pass over the header's members, each key normalized once: it runs for every entry.
        // The first member of a name with text counts.
        var header = SDKHeader()
        for (key, member) in members {
            guard let text = LogKeys.text(member), !text.isEmpty else { continue }
            switch LogKeys.normalized(key) {
            case "sdkversion": header.sdkVersion = header.sdkVersion ?? text
            case "osversion": header.osVersion = header.osVersion ?? text
            case "platform": header.platform = header.platform ?? platformName(text)
            case "sdktype": header.sdkType = header.sdkType ?? sdkTypeName(text)
            case "devicemodel": header.deviceModel = header.deviceModel ?? text
            case "manufacturer": header.manufacturer = header.manufacturer ?? text
            case "mapssdkversion": header.mapsSDKVersion = header.mapsSDKVersion ?? text
            case "navsdkversion": header.navSDKVersion = header.navSDKVersion ?? text
            default: continue
            }
        }
        return header == SDKHeader() ? nil : header
    }

    // RequestHeader's enums by number: Platform {UNSPECIFIED, ANDROID, IOS, WEB}, SdkType
    // {UNSPECIFIED, CONSUMER, DRIVER, JAVASCRIPT} (Fleet Engine reference, `RequestHeader`).
    static let platforms = ["UNSPECIFIED", "ANDROID", "IOS", "WEB"]
    static let sdkTypes = ["UNSPECIFIED", "CONSUMER", "DRIVER", "JAVASCRIPT"]

    static func platformName(_ text: String) -> String {
        enumName(text, prefixes: ["PLATFORM_LOG_", "PLATFORM_"], numbered: platforms)
    }

    static func sdkTypeName(_ text: String) -> String {
        enumName(text, prefixes: ["SDK_TYPE_LOG_", "SDK_TYPE_"], numbered: sdkTypes)
    }

    static func enumName(_ text: String, prefixes: [String], numbered: [String]) -> String {
        if let number = Int(text) { return numbered.indices.contains(number) ? numbered[number] : text }
        let upper = text.uppercased()
        for prefix in prefixes where upper.hasPrefix(prefix) { return String(upper.dropFirst(prefix.count)) }
        return upper
    }
}
