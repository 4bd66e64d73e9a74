import Foundation
import Signals

/// Gives the terminal back when tokendash crashes: a fatal signal (SIGSEGV, SIGBUS, SIGILL,
/// SIGTRAP, SIGABRT) would otherwise leave the user's shell in raw mode, without echo, on the
/// alternate screen with the cursor hidden.
///
/// The handler is async-signal-safe: it only calls tcsetattr(3), write(2), sigaction(2) and
/// raise(3), on memory prepared before it was installed. It then re-raises the signal under the
/// action that was there before (the default, or Swift's backtracer), so the crash is reported
/// and the exit status says which signal it was.
enum CrashRestorer {
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT]

    /// Saves the terminal's settings as they are now (before ncurses changes them) and installs
    /// the handlers. Call once, before `initscr`.
    static func install() {
        guard crashState == nil else { return }
        let terminal = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        terminal.initialize(to: termios())
        guard tcgetattr(STDIN_FILENO, terminal) == 0 else {
            // Not a terminal: nothing to restore.
            terminal.deallocate()
            return
        }
        // Colours off, cursor shown, cursor keys and keypad back to normal, alternate screen
        // left: what endwin sends on xterm and its kin.
        let sequence = Array("\u{1b}[0m\u{1b}[?25h\u{1b}[?1l\u{1b}>\u{1b}[?1049l\r\n".utf8)
        let reset = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: sequence.count)
        _ = reset.initialize(from: sequence)
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(NSIG))
        previous.initialize(repeating: sigaction(), count: Int(NSIG))
        crashState = CrashState(terminal: terminal, reset: UnsafeBufferPointer(reset), previous: previous)
        for number in signals {
            // Once only (SA_RESETHAND): a second fault inside the handler must not loop.
            SignalAction.install(
                number, flags: Int32(bitPattern: UInt32(truncatingIfNeeded: SA_RESETHAND)),
                previous: previous + Int(number)
            ) { number in
                guard let state = crashState else { return }
                _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, state.terminal)
                _ = write(STDOUT_FILENO, state.reset.baseAddress, state.reset.count)
                // The action from before, then the signal again: it is blocked while this handler
                // runs and arrives as soon as it returns (a faulting instruction faults again anyway).
                _ = sigaction(number, state.previous + Int(number), nil)
                _ = raise(number)
            }
        }
    }

    /// Puts the previous actions back, once ncurses has restored the terminal the normal way.
    static func uninstall() {
        guard let state = crashState else { return }
        for number in signals { _ = sigaction(number, state.previous + Int(number), nil) }
    }
}

/// What the handler needs, prepared in memory that is never freed.
struct CrashState {
    let terminal: UnsafeMutablePointer<termios>
    let reset: UnsafeBufferPointer<UInt8>
    /// The actions the handlers replaced, by signal number.
    let previous: UnsafeMutablePointer<sigaction>
}

/// Set once by `install` before any handler can run, then only read (by the handlers). A global
/// because a C signal handler can capture nothing.
nonisolated(unsafe) private var crashState: CrashState?
