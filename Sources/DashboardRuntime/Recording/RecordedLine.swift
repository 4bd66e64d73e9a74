import Dashboard
import Faults
import Fleet
import FleetAuth
import Foundation
import UICore

/// One line of a recording after the header: an action the dashboard applied (or, from `watch`,
/// a provider event), at `t` seconds after the start. Fields are set by `type`:
/// `event` (event), `key` (key; x, y for a click), `tick`, `resize` (width, height), `theme`
/// (name), `faults` (faults), `message` (text; none clears), `following` (provider, index,
/// member), `member_found` (provider, id, index, from), `mark` (index: its number, at, text: its note),
/// `scenario` (banner; none takes it away), `sdks_paused` (paused), `fault_latency` (milliseconds).
public struct RecordedLine: Codable, Equatable, Sendable {
    public var t: Double
    public var type: String
    public var event: RecordedEvent?
    public var key: String?
    public var x: Int?
    public var y: Int?
    public var width: Int?
    public var height: Int?
    public var name: String?
    public var faults: [String: String]?
    public var text: String?
    public var provider: ProviderKind?
    public var id: String?
    public var index: Int?
    public var from: Int?
    public var member: RecordedMember?
    /// A mark's own time, in seconds after the start (the moment marked, not when its answer came).
    public var at: Double?
    public var banner: RecordedBanner?
    public var paused: Bool?
    public var milliseconds: Int?

    init(t: Double, type: String) {
        self.t = t
        self.type = type
    }

    /// The line for `action`, nil for what a replay makes itself (fleet rows and tables come
    /// from its own aggregate) or never records (replay's own actions).
    public init?(_ action: Action, at time: Date, base: RecordingTimeBase) {
        self.init(t: base.offset(time), type: "")
        switch action {
        case .event(let event):
            type = "event"
            self.event = RecordedEvent(event, base: base)
        case .key(let key):
            type = "key"
            switch key {
            case .click(let x, let y):
                self.key = "click"
                (self.x, self.y) = (x, y)
            default:
                self.key = Self.name(of: key)
            }
        case .tick:
            type = "tick"
        case .resized(let width, let height):
            type = "resize"
            (self.width, self.height) = (width, height)
        case .themeLoaded(let theme):
            type = "theme"
            name = theme.name
        case .faultsChanged(let faults):
            type = "faults"
            self.faults = Dictionary(uniqueKeysWithValues: faults.map { ($0.key.rawValue, $0.value.rawValue) })
        case .message(let text):
            type = "message"
            self.text = text.map(Redaction.text)
        case .following(let kind, let index, let member):
            type = "following"
            provider = kind
            self.index = index
            self.member = RecordedMember(member, base: base)
        case .memberFound(let kind, let id, let index, let from):
            type = "member_found"
            provider = kind
            self.id = id
            self.index = index
            self.from = from
        case .marked(let mark):
            type = "mark"
            index = mark.number
            at = base.offset(mark.at)
            text = mark.note.map(Redaction.text)
        case .scenario(let banner):
            type = "scenario"
            self.banner = banner.map(RecordedBanner.init)
        case .sdksPaused(let paused):
            type = "sdks_paused"
            self.paused = paused
        case .faultLatency(let milliseconds):
            type = "fault_latency"
            self.milliseconds = milliseconds
        case .fleet, .fleetTables, .recorded, .replayStatus, .restore:
            return nil
        }
    }

    /// The recorded action; nil for a line this build records but does not replay (a theme it
    /// cannot load). Throws the reason for a line that cannot be read.
    public func action(base: RecordingTimeBase, themes: (String) -> Theme?) throws(RecordingLineError) -> Action? {
        switch type {
        case "event":
            guard let event = event?.providerEvent(base: base) else { throw .missing("a complete event") }
            return .event(event)
        case "key":
            guard let key else { throw .missing("key") }
            if key == "click" {
                guard let x, let y else { throw .missing("x and y") }
                return .key(.click(x: x, y: y))
            }
            guard let decoded = Self.key(named: key) else { throw .invalid("unknown key \"\(key)\"") }
            return .key(decoded)
        case "tick":
            return .tick(base.date(t))
        case "resize":
            guard let width, let height else { throw .missing("width and height") }
            return .resized(width: width, height: height)
        case "theme":
            guard let name else { throw .missing("name") }
            return themes(name).map(Action.themeLoaded)
        case "faults":
            guard let faults else { throw .missing("faults") }
            var choices: [ProviderKind: Fault] = [:]
            for (kind, fault) in faults {
                guard let kind = ProviderKind(rawValue: kind), let fault = Fault(rawValue: fault) else {
                    throw .invalid("unknown fault \(kind)=\(fault)")
                }
                choices[kind] = fault
            }
            return .faultsChanged(choices)
        case "message":
            return .message(text)
        case "following":
            guard let provider, let index, let member else { throw .missing("provider, index and member") }
            return .following(provider, index: index, member: member.snapshot(base: base))
        case "member_found":
            guard let provider, let id, let from else { throw .missing("provider, id and from") }
            return .memberFound(provider, id: id, index: index, from: from)
        case "mark":
            guard let index else { throw .missing("index (the mark's number)") }
            return .marked(Mark(number: index, at: base.date(at ?? t), note: text))
        case "scenario":
            return .scenario(banner?.banner)
        case "sdks_paused":
            guard let paused else { throw .missing("paused") }
            return .sdksPaused(paused)
        case "fault_latency":
            guard let milliseconds else { throw .missing("milliseconds") }
            return .faultLatency(milliseconds: milliseconds)
        default:
            throw .invalid("unknown line type \"\(type)\"")
        }
    }

    static let keyNames: [(Key, String)] = [
        (.tab, "tab"), (.enter, "enter"), (.escape, "escape"), (.backspace, "backspace"), (.up, "up"), (.down, "down"),
        (.left, "left"), (.right, "right"), (.home, "home"), (.end, "end"), (.interrupt, "interrupt"), (.resize, "resize"),
    ]

    /// A character key is the character itself; the others have names longer than one character.
    static func name(of key: Key) -> String {
        if case .character(let c) = key { return String(c) }
        return keyNames.first { $0.0 == key }?.1 ?? "unknown"
    }

    static func key(named name: String) -> Key? {
        if name.count == 1, let c = name.first { return .character(c) }
        return keyNames.first { $0.1 == name }?.0
    }
}

/// Why a line of a recording could not be read.
public enum RecordingLineError: Error, Equatable, CustomStringConvertible {
    case missing(String)
    case invalid(String)

    public var description: String {
        switch self {
        case .missing(let what): "a line without \(what)"
        case .invalid(let why): why
        }
    }
}

/// A fleet member as `following` recorded it: its ID, cached token, last failure, fetch in flight.
public struct RecordedMember: Codable, Equatable, Sendable {
    public var id: String
    public var token: RecordedToken?
    public var lastError: String?
    public var fetching: Bool

    enum CodingKeys: String, CodingKey {
        case id, token, fetching
        case lastError = "last_error"
    }

    init(_ member: MemberSnapshot, base: RecordingTimeBase) {
        id = member.id
        token = member.token.map { RecordedToken($0, base: base) }
        lastError = member.lastError.map(Redaction.text)
        fetching = member.fetching
    }

    func snapshot(base: RecordingTimeBase) -> MemberSnapshot {
        MemberSnapshot(id: id, token: token?.token(base: base), lastError: lastError, fetching: fetching)
    }
}
