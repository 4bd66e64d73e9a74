import FleetAuth

/// The faults switched on, as `GET /faults` shows them: each kind's fault or null.
struct FaultReport: Encodable {
    struct Entry: Encodable {
        var name: String
        var label: String
        var milliseconds: Int?
    }

    var entries: [ProviderKind: Entry]

    init(_ faults: [ProviderKind: ServerFault]) {
        entries = faults.mapValues(Self.entry)
    }

    private static func entry(_ fault: ServerFault) -> Entry {
        if case .latency(let ms) = fault { return Entry(name: fault.name, label: fault.label, milliseconds: ms) }
        return Entry(name: fault.name, label: fault.label)
    }

    func encode(to encoder: any Encoder) throws {
        // Explicit nulls, so a client sees every kind whether or not a fault is on.
        var c = encoder.container(keyedBy: KindKey.self)
        for kind in ProviderKind.allCases { try c.encode(entries[kind], forKey: KindKey(kind)) }
    }

    /// The kind's raw value (`consumer`, `delivery_driver`...) as the JSON key.
    private struct KindKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ kind: ProviderKind) { stringValue = kind.rawValue }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
