import FleetTables

/// What the tap concludes of one exchange: today's rules' verdict on the token it carried, or why
/// there was no token to judge. The names are what `tapped` lines and the metrics print.
public enum TapVerdict: String, Sendable, CaseIterable, Comparable {
    /// Fleet Engine would refuse the token (a failed rule, another ID, already expired).
    case fail
    /// No answer reached the client from the upstream: refused, reset, timed out.
    case unreachable
    /// The upstream answered with a status other than 2xx.
    case httpError = "http_error"
    /// A 2xx answer the tap could not read a token from: not JSON, compressed, too large, cut short.
    case unreadable
    /// Fleet Engine accepts the token, but a rule warns.
    case warn
    case ok

    /// Trouble first, as the fleet table sorts.
    public static func < (a: TapVerdict, b: TapVerdict) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }

    public var isTrouble: Bool { self != .ok && self != .warn }

    /// How the fleet table colours it.
    public var level: TappedColumns.Level { self == .ok ? .ok : self == .warn ? .warn : .trouble }
}
