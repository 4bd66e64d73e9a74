import FleetEngineAPI
import ProviderVocabulary

/// A Fleet Engine answer's status in one byte, as a fleet member keeps it: the fleet table shows
/// each member's last answer, and 100,000 members keep no string each.
package enum FleetEngineStatus {
    /// gRPC's codes as Google's error bodies name them, then anything else.
    package static let names = FleetEngineAnswer.statusNames + ["OTHER"]

    /// 1 and up for a status (`OTHER` for a name not in the list), 0 for none.
    package static func code(_ status: String) -> UInt8 {
        UInt8((names.firstIndex(of: status) ?? names.count - 1) + 1)
    }

    /// An answer other than OK: the SDK's call failed, whatever its token cache says.
    package static func failed(_ code: UInt8) -> Bool { code > 1 }

    package static func name(_ code: UInt8) -> String? {
        code == 0 ? nil : names[min(Int(code), names.count) - 1]
    }
}
