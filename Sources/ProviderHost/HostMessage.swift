import FleetAuth
import Foundation

/// What the provider host says, one JSON object a line on its stdout (the README's "Your own
/// provider" has the protocol, so a host in another language could speak it):
/// `{"t":"ready"}` once the class's instance exists; `{"t":"returned","call":N}` when
/// `fetchToken` returned to its caller; `{"t":"completion","call":N,"token":…,"error":…,
/// "description":…}` each time the completion is called, `token` and `error` null when not given.
/// tokendash writes `{"call":N,"id":"…","task":…}` lines to its stdin: one `fetchToken` call each.
public enum HostMessage: Sendable, Equatable {
    case ready
    case returned(call: Int)
    case completion(call: Int, token: String?, error: String?)

    /// The message on `line`, nil for a line that is not one (it is dropped, not trusted).
    public static func parse(_ line: Substring) -> HostMessage? {
        guard let value = try? JSONValue.decode(Data(line.utf8)), case .object(let fields) = value,
              case .string(let type)? = fields["t"] else { return nil }
        let call = fields["call"]?.intValue.map(Int.init)
        switch type {
        case "ready": return .ready
        case "returned": return call.map { .returned(call: $0) }
        case "completion":
            guard let call else { return nil }
            func text(_ key: String) -> String? { if case .string(let s)? = fields[key] { s } else { nil } }
            // An Error's own description names its case ("missingData"); an NSError's is a dump, so its localized text instead.
            let error = text("error").map { raw in raw.hasPrefix("Error Domain=") ? (text("description") ?? raw) : raw }
            return .completion(call: call, token: text("token"), error: error)
        default: return nil
        }
    }

    /// The line that asks for call `call` with `id` (and a task, for the last-mile driver).
    public static func request(call: Int, id: String, task: String? = nil) -> String {
        var fields: [(String, JSONValue)] = [("call", .int(Int64(call))), ("id", .string(id))]
        if let task { fields.append(("task", .string(task))) }
        return JSONValue.object(Dictionary(uniqueKeysWithValues: fields)).description + "\n"
    }
}
