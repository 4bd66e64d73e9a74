import Dashboard
import Faults
import Foundation
import ProviderVocabulary
import RecordingFormat
import Redaction
import UICore

/// The dashboard's actions as recording lines and back: what `--record` writes of each action the
/// loop applies, and what a replay applies of each line.
extension RecordedLine {
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
        case .message(let text): content = .message(text.map(SecretRedactor.redact))
        case .following(let kind, let index, let member):
            content = .following(provider: kind, index: index, member: RecordedMember(member, base: base))
        case .memberFound(let kind, let id, let index, let from):
            content = .memberFound(provider: kind, id: id, index: index, from: from)
        case .marked(let mark):
            content = .mark(index: mark.number, at: base.offset(mark.at), note: mark.note.map(SecretRedactor.redact))
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
