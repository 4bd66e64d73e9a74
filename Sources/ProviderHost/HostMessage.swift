import Foundation
import JSONValues
import ProviderVocabulary

/// What the provider host says, one JSON object a line on descriptor 4 (docs/your-provider.md
/// has the protocol, so a host in another language could speak it): `{"t":"ready"}` once the
/// class's instance exists; `{"t":"returned","call":N}` when `fetchToken` returned to its caller;
/// `{"t":"completion","call":N,"token":…,"error":…,"description":…}` each time the completion is
/// called, `token` and `error` null when not given; `{"t":"exiting","status":S}` when the process
/// calls `exit(S)` (ThreadSanitizer may then end it with a status of its own).
/// tokendash writes `{"call":N,"id":"…","task":…}` lines to descriptor 3: one `fetchToken` call each.
public enum HostMessage: Sendable, Equatable {
    case ready
    case returned(call: Int)
    case completion(call: Int, token: String?, error: String?)
    /// The class's own exit status, said before the process ends.
    case exiting(status: Int32)

    /// The message on `line`, nil for a line that is not one (it is dropped, not trusted).
    public static func parse(_ line: Substring) -> HostMessage? {
        if let message = parseHostsOwn(line) { return message }
        guard let value = try? JSONValue.decode(Data(line.utf8)), case .object(let fields) = value,
            case .string(let type)? = fields["t"]
        else { return nil }
        let call = fields["call"]?.intValue.map(Int.init)
        switch type {
        case "ready": return .ready
        case "exiting":
            return fields["status"]?.intValue.flatMap { Int32(exactly: $0) }.map { .exiting(status: $0) }
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

    /// The two lines of every call as the Swift host writes them (`{"t":"returned","call":N}`,
    /// `{"t":"completion","call":N,"token":"…"}` with nothing to unescape), read without a JSON
    /// decoder: a call's answer is the hot path. Any other line, nil, goes to the decoder.
    static func parseHostsOwn(_ line: Substring) -> HostMessage? {
        let bytes = line.utf8
        func number(after prefix: String) -> (Int, Substring.UTF8View.Index)? {
            guard bytes.starts(with: prefix.utf8) else { return nil }
            let start = bytes.index(bytes.startIndex, offsetBy: prefix.utf8.count)
            let end = bytes[start...].firstIndex { $0 < UInt8(ascii: "0") || $0 > UInt8(ascii: "9") } ?? bytes.endIndex
            guard start < end, bytes.distance(from: start, to: end) <= 18,
                let value = Int(Substring(bytes[start..<end]))
            else { return nil }
            return (value, end)
        }
        if let (call, end) = number(after: #"{"t":"returned","call":"#) {
            return bytes[end...].elementsEqual("}".utf8) ? .returned(call: call) : nil
        }
        guard let (call, end) = number(after: #"{"t":"completion","call":"#) else { return nil }
        let rest = bytes[end...]
        let open = #","token":""#.utf8
        let close = #""}"#.utf8
        guard rest.starts(with: open), rest.count >= open.count + close.count,
            rest.suffix(close.count).elementsEqual(close)
        else { return nil }
        let token = rest.dropFirst(open.count).dropLast(close.count)
        guard !token.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 < 0x20 }) else {
            return nil
        }
        return .completion(call: call, token: String(Substring(token)), error: nil)
    }

    /// The line that asks for call `call` with `id` (and a task, for the last-mile driver): the
    /// JSON `JSONValue` would write (sorted keys, `/` unescaped), put together by hand, as
    /// JSONEncoder costs more than the rest of a cached call's own work.
    public static func request(call: Int, id: String, task: String? = nil) -> String {
        var line = #"{"call":"#
        line += String(call)
        line += #","id":"#
        JSONStringWriter.append(id, to: &line)
        if let task {
            line += #","task":"#
            JSONStringWriter.append(task, to: &line)
        }
        line += "}\n"
        return line
    }
}
