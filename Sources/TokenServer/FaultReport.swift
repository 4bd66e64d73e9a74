import FleetAuth

/// The faults switched on, as `GET /faults` shows them: each kind's fault or null.
struct FaultReport: Encodable {
    struct Entry: Encodable {
        var name: String
        var label: String
        var milliseconds: Int?
    }

    var consumer: Entry?
    var driver: Entry?

    init(_ faults: [ProviderKind: ServerFault]) {
        consumer = faults[.consumer].map(Self.entry)
        driver = faults[.driver].map(Self.entry)
    }

    private static func entry(_ fault: ServerFault) -> Entry {
        if case .latency(let ms) = fault { return Entry(name: fault.name, label: fault.label, milliseconds: ms) }
        return Entry(name: fault.name, label: fault.label)
    }

    func encode(to encoder: any Encoder) throws {
        // Explicit nulls, so a client sees both kinds whether or not a fault is on.
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(consumer, forKey: .consumer)
        try c.encode(driver, forKey: .driver)
    }

    private enum CodingKeys: String, CodingKey { case consumer, driver }
}
