import Faults
import ProviderVocabulary

/// The faults switched on, as `GET /faults` shows them: each kind's fault or null.
struct FaultReport: Encodable {
    struct Entry: Encodable {
        var name: String
        var label: String
        var milliseconds: Int?
    }

    var entries: [ProviderKind: Entry]

    init(_ faults: [ProviderKind: FaultSetting]) {
        entries = faults.mapValues(Self.entry)
    }

    private static func entry(_ setting: FaultSetting) -> Entry {
        Entry(
            name: setting.fault.name, label: setting.label,
            milliseconds: setting.fault == .latency ? setting.latencyMilliseconds : nil)
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
