// The executable is a shell over TokendashCLI, where the commands, their flags and the session's
// assembly live, so tests reach them in-process.
import TokendashCLI

await TokenDash.runFromCommandLine()
