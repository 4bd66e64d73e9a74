/// A config file that cannot be used, located to the line: printed as `file:line: reason`, the
/// one line a user sees before the screen would start.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var reason: String

    public init(file: String, line: Int?, _ reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)" }
}
