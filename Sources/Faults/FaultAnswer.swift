/// What an injected fault answers in the backend's place, wherever it acts: the embedded
/// server's token routes and the provider's loopback proxy. The one place those answers are
/// written, so a source provider behind the proxy sees what a sample behind the server sees.
public struct FaultAnswer: Sendable, Equatable {
    public let status: Int
    public let reason: String
    /// `Retry-After`, in seconds: a 429's.
    public let retryAfterSeconds: Int?
    /// JSON, or for `malformed` JSON cut in half.
    public let body: String

    /// The answer `fault` gives instead of a token; nil for the faults that answer with a token
    /// (made wrong), late, or not at all. `malformed` cuts `token`, the answer it spoils.
    public init?(_ fault: Fault, token: String = #"{"jwt":"eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.e30.c2ln"}"#) {
        switch fault {
        case .http500: self.init(500, "Internal Server Error", error: "injected fault: HTTP 500")
        case .http401:
            self.init(401, "Unauthorized", error: "injected fault: HTTP 401, the app's credentials are refused")
        case .rateLimited:
            self.init(
                429, "Too Many Requests", error: "injected fault: HTTP 429, too many requests",
                retryAfter: Fault.retryAfterSeconds)
        case .malformed: self.init(status: 200, reason: "OK", retryAfter: nil, body: Self.cut(token))
        case .latency, .drop, .wrongID, .expired, .fleetEngineUnavailable, .revokedKey, .clockSkew:
            return nil
        }
    }

    private init(_ status: Int, _ reason: String, error: String, retryAfter: Int? = nil) {
        // The messages are fixed ASCII without quotes or backslashes: nothing to escape.
        self.init(status: status, reason: reason, retryAfter: retryAfter, body: #"{"error":""# + error + #""}"#)
    }

    private init(status: Int, reason: String, retryAfter: Int?, body: String) {
        self.status = status
        self.reason = reason
        retryAfterSeconds = retryAfter
        self.body = body
    }

    /// The fields beside the body, as every writer of the answer sends them.
    public var headers: [(name: String, value: String)] {
        [("Content-Type", "application/json")] + (retryAfterSeconds.map { [("Retry-After", String($0))] } ?? [])
    }

    /// The first half of `whole`: JSON that ends in the middle.
    public static func cut<C: Collection>(_ whole: C) -> C.SubSequence { whole.prefix(whole.count / 2) }

    private static func cut(_ whole: String) -> String { String(cut(Substring(whole))) }
}
