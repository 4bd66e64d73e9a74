import NIOCore

/// What bounds a client and the upstream, as nginx's defaults do: a client that sends nothing for
/// 60 s while the tap waits for it is closed (`client_header_timeout`, `client_body_timeout`; an
/// idle kept-alive connection too, where nginx waits 75 s), as is one that takes nothing of its
/// answer for 60 s (`send_timeout`; the upstream read timeout does not count meanwhile); a body may be 1 MiB (`client_max_body_size`, else 413); the upstream
/// has 60 s to connect and 60 s between reads (`proxy_connect_timeout`, `proxy_read_timeout`).
/// Heads are bounded by SwiftNIO's parser (80 KiB), past which the client gets 400, and to 100
/// header fields, past which it gets 431 (Envoy's default; nginx refuses some thousands with 400):
/// a head of thousands of tiny fields costs every hop that copies it. Upstream connections are
/// shared by the client connections, at most `upstreamKeepalive` kept idle per event loop (nginx's
/// upstream `keepalive`, per worker; `--upstream-keepalive`, 16 by default), each closed after 60 s idle.
public struct TapLimits: Sendable {
    public var clientTimeout: TimeAmount = .seconds(60)
    public var maxBodyBytes = 1 << 20
    public var maxHeaderFields = 100
    public var connectTimeout: TimeAmount = .seconds(60)
    public var upstreamReadTimeout: TimeAmount = .seconds(60)
    public var upstreamKeepalive = 16

    public init() {}

    /// `60 s`, or `200 ms` for a timeout under a second (as tests shorten them): what the 504 says.
    static func said(_ amount: TimeAmount) -> String {
        amount.nanoseconds % 1_000_000_000 == 0
            ? "\(amount.nanoseconds / 1_000_000_000) s" : "\(amount.nanoseconds / 1_000_000) ms"
    }
}
