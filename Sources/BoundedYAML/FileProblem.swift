/// A file the user handed tokendash (a config, a theme, a scenario) that cannot be used, located
/// to the line: printed as `file:line: reason`, the one line a user sees before anything starts.
/// One type for every such file, so each says what is wrong the same way.
public struct FileProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var reason: String

    public init(file: String, line: Int?, _ reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `problem` of reading `file` as YAML, after `lead` ("the file is ", say): it keeps its line.
    public init(file: String, _ problem: YAMLProblem, lead: String = "") {
        self.init(file: file, line: problem.line, lead + problem.reason)
    }

    public var description: String { line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)" }
}
