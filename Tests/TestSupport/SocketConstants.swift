#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The socket constants whose Swift types differ between glibc and Darwin, for the tests that
/// speak raw TCP, so they compile on both.
public enum SocketConstants {
    /// `SOCK_STREAM` as `socket()` takes it: glibc's module imports it as an enum.
    public static var stream: Int32 {
        #if canImport(Glibc)
            Int32(SOCK_STREAM.rawValue)
        #else
            SOCK_STREAM
        #endif
    }

    /// `send()` flags that turn a write to a closed peer into EPIPE instead of SIGPIPE. Darwin has
    /// no `MSG_NOSIGNAL` (a socket there sets `SO_NOSIGPIPE` instead, which these tests do not
    /// yet do), so no flag is the fallback that compiles.
    public static var noSignal: Int32 {
        #if canImport(Glibc)
            Int32(MSG_NOSIGNAL)
        #else
            0
        #endif
    }
}
