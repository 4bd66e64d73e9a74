import Dashboard
import Faults
import Fleet
import FleetTables
import Foundation
import ProviderVocabulary
import UICore

/// One line of a recording after the header: an action the dashboard applied (or, from `watch`,
/// a provider event), at `t` seconds after the start. What the line holds is one case of
/// `Content`, so a new kind of line is a compile error in the writer, the reader
/// (`RecordedLine+Codable.swift`), the bounds and the replay until each handles it.
public struct RecordedLine: Equatable, Sendable {
    public var t: Double
    public var content: Content

    public enum Content: Equatable, Sendable {
        case event(RecordedEvent)
        /// A key by name (`RecordedLine.name(of:)`); a click is its own case.
        case key(String)
        case click(x: Int, y: Int)
        case tick
        case resize(width: Int, height: Int)
        case theme(name: String)
        /// Fault names by provider kind, as `Fault` and `ProviderKind` spell them.
        case faults([String: String])
        /// nil clears the message.
        case message(String?)
        case following(provider: ProviderKind, index: Int, member: RecordedMember)
        case memberFound(provider: ProviderKind, id: String, index: Int?, from: Int)
        /// `at`: the mark's own time, in seconds after the start (the moment marked, not when its
        /// answer came); nil in older files, where it is `t`.
        case mark(index: Int, at: Double?, note: String?)
        /// nil takes the banner away.
        case scenario(RecordedBanner?)
        case sdksPaused(Bool)
        case faultLatency(milliseconds: Int)
        /// The ramp's pace when it changed; nil when the run has none.
        case pace(RecordedPace?)
    }

    public init(t: Double, _ content: Content) {
        self.t = t
        self.content = content
    }

    /// The line for `action`, nil for what a replay makes itself (fleet rows and tables come
    /// from its own aggregate) or never records (replay's own actions).
    public init?(_ action: Action, at time: Date, base: RecordingTimeBase) {
        let content: Content
        switch action {
        case .event(let event): content = .event(RecordedEvent(event, base: base))
        case .key(.click(let x, let y)): content = .click(x: x, y: y)
        case .key(let key): content = .key(Self.name(of: key))
        case .tick: content = .tick
        case .resized(let width, let height): content = .resize(width: width, height: height)
        case .themeLoaded(let theme): content = .theme(name: theme.name)
        case .faultsChanged(let faults):
            content = .faults(Dictionary(uniqueKeysWithValues: faults.map { ($0.key.rawValue, $0.value.rawValue) }))
        case .message(let text): content = .message(text.map(Redaction.text))
        case .following(let kind, let index, let member):
            content = .following(provider: kind, index: index, member: RecordedMember(member, base: base))
        case .memberFound(let kind, let id, let index, let from):
            content = .memberFound(provider: kind, id: id, index: index, from: from)
        case .marked(let mark):
            content = .mark(index: mark.number, at: base.offset(mark.at), note: mark.note.map(Redaction.text))
        case .scenario(let banner): content = .scenario(banner.map(RecordedBanner.init))
        case .sdksPaused(let paused): content = .sdksPaused(paused)
        case .faultLatency(let milliseconds): content = .faultLatency(milliseconds: milliseconds)
        case .rampPace(let pace): content = .pace(pace.map(RecordedPace.init))
        case .fleet, .fleetTables, .recorded, .replayStatus, .restore:
            return nil
        }
        self.init(t: base.offset(time), content)
    }

    /// The recorded action; nil for a line this build records but does not replay (a theme it
    /// cannot load). Throws the reason for a line that cannot be read.
    public func action(base: RecordingTimeBase, themes: (String) -> Theme?) throws(RecordingLineError) -> Action? {
        switch content {
        case .event(let event):
            guard let event = event.providerEvent(base: base) else { throw .missing("a complete event") }
            return .event(event)
        case .key(let name):
            guard let key = Self.key(named: name) else { throw .invalid("unknown key \"\(name)\"") }
            return .key(key)
        case .click(let x, let y): return .key(.click(x: x, y: y))
        case .tick: return .tick(base.date(t))
        case .resize(let width, let height): return .resized(width: width, height: height)
        case .theme(let name): return themes(name).map(Action.themeLoaded)
        case .faults(let faults):
            var choices: [ProviderKind: Fault] = [:]
            for (kind, fault) in faults {
                guard let kind = ProviderKind(rawValue: kind), let fault = Fault(rawValue: fault) else {
                    throw .invalid("unknown fault \(kind)=\(fault)")
                }
                choices[kind] = fault
            }
            return .faultsChanged(choices)
        case .message(let text): return .message(text)
        case .following(let provider, let index, let member):
            return .following(provider, index: index, member: member.snapshot(base: base))
        case .memberFound(let provider, let id, let index, let from):
            return .memberFound(provider, id: id, index: index, from: from)
        case .mark(let index, let at, let note): return .marked(Mark(number: index, at: base.date(at ?? t), note: note))
        case .scenario(let banner): return .scenario(banner?.banner)
        case .sdksPaused(let paused): return .sdksPaused(paused)
        case .faultLatency(let milliseconds): return .faultLatency(milliseconds: milliseconds)
        case .pace(let pace):
            guard let pace else { return .rampPace(nil) }
            guard let status = pace.status else { throw .invalid("unknown pace reason \"\(pace.reason)\"") }
            return .rampPace(status)
        }
    }

    static let keyNames: [(Key, String)] = [
        (.tab, "tab"), (.enter, "enter"), (.escape, "escape"), (.backspace, "backspace"), (.up, "up"), (.down, "down"),
        (.left, "left"), (.right, "right"), (.home, "home"), (.end, "end"), (.interrupt, "interrupt"),
        (.resize, "resize"),
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
