/// Why a route server could not listen, in one line.
public enum RouteServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case bindFailed(address: String, reason: String)

    public var description: String {
        switch self {
        case .bindFailed(let address, let reason): "cannot listen on \(address): \(reason)"
        }
    }
}
