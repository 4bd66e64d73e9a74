import Faults
import ProviderVocabulary

/// Where each kind's fault acts, so it acts in one place: a source provider's kind at its
/// loopback proxy for what a proxy can act out (latency, drop, the HTTP answers), everything else
/// (and every kind without a proxy) at the embedded server. Setting one clears the other, so a
/// latency is never served twice.
public struct SessionFaults: Sendable {
    public let server: EmbeddedTokenServer?
    /// The fault slots of the source providers' proxies, by kind.
    public let proxied: [ProviderKind: ProxyFaultSlot]

    public init(server: EmbeddedTokenServer?, proxied: [ProviderKind: ProxyFaultSlot] = [:]) {
        self.server = server
        self.proxied = proxied
    }

    /// Whether any fault can act: an embedded server, or a source provider's proxy.
    public var canInject: Bool { server != nil || !proxied.isEmpty }

    public func set(_ fault: Fault?, latencyMilliseconds: Int, for kinds: [ProviderKind]) async {
        for kind in kinds {
            let slot = proxied[kind]
            let atProxy = slot != nil && fault?.actsAtProxy == true
            slot?.set(atProxy ? fault.map { FaultSetting($0, latencyMilliseconds: latencyMilliseconds) } : nil)
            await server?.setFault(
                atProxy ? nil : fault, latencyMilliseconds: latencyMilliseconds, for: FaultTarget(kind))
        }
    }

    /// Every kind's fault, wherever it acts.
    public func all() async -> [ProviderKind: FaultSetting] {
        var all = await server?.faults() ?? [:]
        for (kind, slot) in proxied {
            if let setting = slot.setting { all[kind] = setting }
        }
        return all
    }
}
