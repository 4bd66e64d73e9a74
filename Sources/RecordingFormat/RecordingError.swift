/// A recording that cannot be replayed at all: the command exits 2 with this one line.
public enum RecordingError: Error, Equatable, CustomStringConvertible {
    case unreadable(String, String)
    case notARecording(String, String)
    /// A header read but holding a value past `InputBounds` (a start in the year 10^292).
    case badHeader(String, String)
    case cannotWrite(String, String)

    public var description: String {
        switch self {
        case .unreadable(let path, let why): "\(path): \(why)"
        case .notARecording(let path, let why): "\(path):1: not a tokendash recording: \(why)"
        case .badHeader(let path, let why): "\(path):1: \(why)"
        case .cannotWrite(let path, let why): "--record \(path): \(why)"
        }
    }
}
