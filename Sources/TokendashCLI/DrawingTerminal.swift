import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a screen can be drawn here: stdin and stdout a TTY, and a TERM that draws. The one
/// test the dashboard, the tap's screen, `replay` and `logs` make before taking the terminal; each
/// says in its own words what to use in a script instead.
func hasDrawingTerminal(_ environment: [String: String]) -> Bool {
    let term = environment["TERM"] ?? ""
    return isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && !term.isEmpty && term != "dumb"
}
