import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes raw bytes to a blocking socket, for the tests' hand-written servers and clients.
public enum SocketWriter {
    /// Writes all of `bytes`; false once the peer has gone (no SIGPIPE).
    @discardableResult
    public static func send(_ fd: Int32, _ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                guard let base = buffer.baseAddress else { return false }
                let n = Foundation.send(fd, base + offset, buffer.count - offset, SocketConstants.noSignal)
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }
}
