import NIOHTTP1
import ProxyKit

/// Reads a backend's answer as it passes through the proxy, without changing it (its head decoded
/// by NIOHTTP1 once framed): the status, the head's length, and the body's bytes, and whether the
/// body is all there (by `Content-Length`), so the log's line is written before the host has the
/// last byte. An answer it cannot read
/// (no status line, a head over the limit, chunked) is still forwarded whole; its line then
/// comes when the connection closes.
struct ResponseMeter: Sendable {
    private(set) var status: Int?
    private(set) var totalBytes = 0
    private var headLength: Int?
    private var contentLength: Int?
    private var head: [UInt8] = []
    private var unreadable = false
    /// The body's first bytes (up to `keptBody`), for what a token backend's answer says of its expiry.
    private(set) var bodyStart: [UInt8] = []
    static let keptBody = 16_384

    /// The body's bytes so far (everything, when the head could not be read).
    var bodyBytes: Int { headLength.map { totalBytes - $0 } ?? (unreadable ? totalBytes : 0) }

    /// The whole body has passed, by its `Content-Length`.
    var isComplete: Bool {
        guard let contentLength else { return false }
        return bodyBytes >= contentLength
    }

    mutating func feed(_ bytes: some Collection<UInt8>) {
        totalBytes += bytes.count
        if headLength != nil { keep(bytes) }
        guard headLength == nil, !unreadable else { return }
        head.append(contentsOf: bytes)
        guard let end = ProxyHeadReader.endOfHead(head) else {
            if head.count > ProxyRequestHead.limit {
                unreadable = true
                head = []
            }
            return
        }
        headLength = end
        readHead(String(decoding: head[..<end], as: UTF8.self))
        keep(head[end...])
        head = []
    }

    private mutating func keep(_ bytes: some Collection<UInt8>) {
        guard headLength != nil, !unreadable, bodyStart.count < Self.keptBody else { return }
        bodyStart.append(contentsOf: bytes.prefix(Self.keptBody - bodyStart.count))
    }

    private mutating func readHead(_ text: String) {
        guard let head = HeadDecoding.response(text) else { return giveUp() }
        status = Int(head.status.code)
        // An interim answer (100 Continue) is followed by the real one: its length is not this answer's.
        if head.status.code < 200 { return giveUp() }
        // A chunked body's end is in its framing, which the meter does not follow: its line comes at the close.
        guard !head.headers.contains(name: "transfer-encoding") else { return }
        contentLength = head.headers.first(name: "content-length").flatMap { Int($0) }
    }

    /// Counts every byte as the body from here on, as for an answer without a readable head.
    private mutating func giveUp() {
        unreadable = true
        headLength = nil
    }
}
