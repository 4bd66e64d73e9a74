import Foundation

/// Installs a C signal handler with sigaction(2): the one place that knows glibc and Darwin name
/// the handler's field differently. Terminal's `CrashRestorer` and `SignalWatcher` both install
/// through it.
public enum SignalAction {
    /// Installs `handler` for `number` with an empty mask and `flags`; the action it replaced is
    /// written to `previous` when given.
    public static func install(
        _ number: Int32, flags: Int32, previous: UnsafeMutablePointer<sigaction>? = nil,
        handler: @convention(c) (Int32) -> Void
    ) {
        var action = sigaction()
        #if canImport(Darwin)
            action.__sigaction_u.__sa_handler = handler
        #else
            action.__sigaction_handler.sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = flags
        _ = sigaction(number, &action, previous)
    }
}
