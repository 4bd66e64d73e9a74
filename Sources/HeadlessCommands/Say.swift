import Foundation

/// One line on stderr as every command writes it: `tokendash NAME: line`, or `tokendash: line`
/// without a name (the dashboard's, the command a bare `tokendash` runs). The one place the form is
/// written, so a command's lines cannot drift from the others'.
package func say(_ line: String, as command: String?) {
    let prefix = command.map { "tokendash \($0): " } ?? "tokendash: "
    FileHandle.standardError.write(Data((prefix + line + "\n").utf8))
}
