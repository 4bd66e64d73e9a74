/// Why a YAML text cannot be read, and the line it is on when there is one: each reader puts
/// its own file name in front (`file:line: reason`).
public struct YAMLProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int?
    public var reason: String

    public init(line: Int?, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { line.map { "\($0): \(reason)" } ?? reason }
}
