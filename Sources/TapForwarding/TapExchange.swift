import Foundation

/// One request and answer as the forwarder saw them, handed to the reader after the answer went
/// back to the client (or after it could not). Only what the analysis needs: the request's
/// target, never its headers, so cookies and `Authorization` never leave the forwarding path.
public struct TapExchange: Sendable {
    /// How the exchange ended, from the forwarder's side.
    public enum Outcome: Sendable, Equatable {
        /// The whole answer went back to the client.
        case answered
        /// The upstream could not be reached or closed without answering: the client got a 502 (504 on a timeout).
        case noAnswer(reason: String)
        /// The answer started but did not end: the upstream or the client went away, or it stalled.
        case cutShort(reason: String)
    }

    public var method: String
    /// The request target: path and query.
    public var target: String
    /// The status the client got (the upstream's, or the tap's 502 and 504).
    public var status: Int
    /// The upstream's answer headers the reader reads (`readHeaders`), names lower-cased, the
    /// first of repeated names. No other header leaves the forwarding path: a cookie the backend
    /// sets is forwarded, never queued.
    public var headers: [String: String]
    /// The answer's body, at most `bodyCap` bytes of it.
    public var body: Data
    /// The body went past the cap; `body` holds its start.
    public var bodyTruncated: Bool
    /// From the request sent upstream to the answer's end.
    public var latency: TimeInterval
    /// When the request arrived.
    public var time: Date
    public var outcome: Outcome

    /// The answer headers a reading needs: how the body is encoded and what it is, the backend's
    /// clock (`Date`, for skew) and when to ask again (`Retry-After`, for a 429 or 503).
    public static let readHeaders = ["content-type", "content-encoding", "date", "retry-after"]

    /// How much of an answer the reader keeps: a token answer is well under 4 KiB, and the
    /// providers refuse more than 64 KiB (`TokenEndpoint.maxBodyBytes`).
    public static let bodyCap = 64 * 1024

    public init(
        method: String, target: String, status: Int, headers: [String: String] = [:], body: Data = Data(),
        bodyTruncated: Bool = false, latency: TimeInterval, time: Date, outcome: Outcome = .answered
    ) {
        self.method = method
        self.target = target
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyTruncated = bodyTruncated
        self.latency = latency
        self.time = time
        self.outcome = outcome
    }
}
