/// Fleet Engine's logged methods: `logName`'s last part (snake case) and the payload `@type`
/// ("UpdateVehicleLog", LMFS's "…delivery.log.v1.UpdateDeliveryVehicleLog"; restricted ones end in
/// "RestrictedLog"). From the Fleet Engine logging references for trips and for tasks
/// (https://developers.google.com/maps/documentation/mobility/operations/cloud-logging/reference/trips/rest,
/// …/reference/tasks/rest). A type not listed is counted and named, never an error.
enum FleetEngineMethods {
    static let all = [
        "create_vehicle", "get_vehicle", "update_vehicle", "update_vehicle_attributes", "update_vehicle_location",
        "list_vehicles", "search_vehicles", "search_fuzzed_vehicles", "delete_vehicle", "create_trip", "get_trip",
        "update_trip", "search_trips", "report_billable_trip", "delete_trip", "create_delivery_vehicle",
        "get_delivery_vehicle", "update_delivery_vehicle", "list_delivery_vehicles", "delete_delivery_vehicle",
        "create_task", "get_task", "update_task", "list_tasks", "search_tasks", "batch_create_tasks",
        "get_task_tracking_info", "delete_task",
    ]

    /// "update_vehicle" → "updatevehicle", for the type and column names.
    private static let byFlatName: [String: String] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.replacingOccurrences(of: "_", with: ""), $0) })

    /// The method of a type name such as "UpdateVehicleLog" or "UpdateVehicleRestrictedLog".
    static func method(ofLogType name: String) -> String? {
        var flat = name.lowercased()
        for suffix in ["restrictedlog", "log"] where flat.hasSuffix(suffix) {
            flat.removeLast(suffix.count)
            return byFlatName[flat]
        }
        return nil
    }

    static func isKnownLogType(_ name: String) -> Bool { method(ofLogType: name) != nil }

    /// The method of a BigQuery payload column, "jsonpayloadv1updatevehiclelog" (normalized): the
    /// longest method whose flat name followed by "log" ends the column.
    static func method(ofColumn column: String) -> String? {
        var best: String?
        for (flat, method) in byFlatName
        where column.hasSuffix(flat + "log") || column.hasSuffix(flat + "restrictedlog") {
            if best == nil || method.count > best!.count { best = method }
        }
        return best
    }
}
