import Foundation
import ProviderEvents
import ProviderVocabulary

/// The wire format of a recording line: `t`, `type`, and the fields of that type, as flat JSON
/// keys (the format files already on disk use). Encoding and decoding each switch over every
/// case, so a new kind of line cannot be written without also being read.
extension RecordedLine: Codable {
    /// The `type` of each kind of line, as files hold it.
    public enum Kind: String, CaseIterable, Sendable {
        case event, key, tick, resize, theme, faults, message, following, mark, scenario
        case memberFound = "member_found"
        case sdksPaused = "sdks_paused"
        case faultLatency = "fault_latency"
        case pace
    }

    enum CodingKeys: String, CodingKey {
        case t, type, event, key, x, y, width, height, name, faults, text, provider, id, index, from, member, at
        case banner, paused, milliseconds, pace
    }

    private struct EventNameProbe: Decodable { let event: String }

    public var kind: Kind {
        switch content {
        case .event: .event
        case .key, .click: .key
        case .tick: .tick
        case .resize: .resize
        case .theme: .theme
        case .faults: .faults
        case .message: .message
        case .following: .following
        case .memberFound: .memberFound
        case .mark: .mark
        case .scenario: .scenario
        case .sdksPaused: .sdksPaused
        case .faultLatency: .faultLatency
        case .pace: .pace
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(t, forKey: .t)
        try c.encode(kind.rawValue, forKey: .type)
        switch content {
        case .event(let event): try c.encode(event, forKey: .event)
        case .key(let name): try c.encode(name, forKey: .key)
        case .click(let x, let y):
            try c.encode("click", forKey: .key)
            try c.encode(x, forKey: .x)
            try c.encode(y, forKey: .y)
        case .tick: break
        case .resize(let width, let height):
            try c.encode(width, forKey: .width)
            try c.encode(height, forKey: .height)
        case .theme(let name): try c.encode(name, forKey: .name)
        case .faults(let faults): try c.encode(faults, forKey: .faults)
        case .message(let text): try c.encodeIfPresent(text, forKey: .text)
        case .following(let provider, let index, let member):
            try c.encode(provider, forKey: .provider)
            try c.encode(index, forKey: .index)
            try c.encode(member, forKey: .member)
        case .memberFound(let provider, let id, let index, let from):
            try c.encode(provider, forKey: .provider)
            try c.encode(id, forKey: .id)
            try c.encodeIfPresent(index, forKey: .index)
            try c.encode(from, forKey: .from)
        case .mark(let index, let at, let note):
            try c.encode(index, forKey: .index)
            try c.encodeIfPresent(at, forKey: .at)
            try c.encodeIfPresent(note, forKey: .text)
        case .scenario(let banner): try c.encodeIfPresent(banner, forKey: .banner)
        case .sdksPaused(let paused): try c.encode(paused, forKey: .paused)
        case .faultLatency(let milliseconds): try c.encode(milliseconds, forKey: .milliseconds)
        case .pace(let pace): try c.encodeIfPresent(pace, forKey: .pace)
        }
    }

    /// Throws `RecordingLineError` for a line that is JSON but not a line this build reads (an
    /// unknown type, a field its type needs missing), and a `DecodingError` for one that is not
    /// JSON of the right shape (garbled).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let t = try c.decode(Double.self, forKey: .t)
        let type = try c.decode(String.self, forKey: .type)
        guard let kind = Kind(rawValue: type) else { throw RecordingLineError.invalid("unknown line type \"\(type)\"") }
        func need<T: Decodable>(_ type: T.Type, _ key: CodingKeys, _ what: String? = nil) throws -> T {
            guard let value = try c.decodeIfPresent(type, forKey: key) else {
                throw RecordingLineError.missing(what ?? key.rawValue)
            }
            return value
        }
        let content: Content
        switch kind {
        case .event:
            // A newer tokendash's event is named as such, not taken for a garbled line.
            if let probe = try? c.decodeIfPresent(EventNameProbe.self, forKey: .event),
                ProviderEvent.Name(rawValue: probe.event) == nil
            {
                throw RecordingLineError.invalid("unknown event \"\(probe.event)\"")
            }
            guard let event = try c.decodeIfPresent(RecordedEvent.self, forKey: .event) else {
                throw RecordingLineError.missing("a complete event")
            }
            content = .event(event)
        case .key:
            let name = try need(String.self, .key)
            if name == "click" {
                guard let x = try c.decodeIfPresent(Int.self, forKey: .x),
                    let y = try c.decodeIfPresent(Int.self, forKey: .y)
                else {
                    throw RecordingLineError.missing("x and y")
                }
                content = .click(x: x, y: y)
            } else {
                content = .key(name)
            }
        case .tick: content = .tick
        case .resize:
            guard let width = try c.decodeIfPresent(Int.self, forKey: .width),
                let height = try c.decodeIfPresent(Int.self, forKey: .height)
            else { throw RecordingLineError.missing("width and height") }
            content = .resize(width: width, height: height)
        case .theme: content = .theme(name: try need(String.self, .name))
        case .faults: content = .faults(try need([String: String].self, .faults))
        case .message: content = .message(try c.decodeIfPresent(String.self, forKey: .text))
        case .following:
            guard let provider = try c.decodeIfPresent(ProviderKind.self, forKey: .provider),
                let index = try c.decodeIfPresent(Int.self, forKey: .index),
                let member = try c.decodeIfPresent(RecordedMember.self, forKey: .member)
            else {
                throw RecordingLineError.missing("provider, index and member")
            }
            content = .following(provider: provider, index: index, member: member)
        case .memberFound:
            guard let provider = try c.decodeIfPresent(ProviderKind.self, forKey: .provider),
                let id = try c.decodeIfPresent(String.self, forKey: .id),
                let from = try c.decodeIfPresent(Int.self, forKey: .from)
            else {
                throw RecordingLineError.missing("provider, id and from")
            }
            content = .memberFound(
                provider: provider, id: id, index: try c.decodeIfPresent(Int.self, forKey: .index), from: from)
        case .mark:
            content = .mark(
                index: try need(Int.self, .index, "index (the mark's number)"),
                at: try c.decodeIfPresent(Double.self, forKey: .at),
                note: try c.decodeIfPresent(String.self, forKey: .text))
        case .scenario: content = .scenario(try c.decodeIfPresent(RecordedBanner.self, forKey: .banner))
        case .sdksPaused: content = .sdksPaused(try need(Bool.self, .paused))
        case .faultLatency: content = .faultLatency(milliseconds: try need(Int.self, .milliseconds))
        case .pace: content = .pace(try c.decodeIfPresent(RecordedPace.self, forKey: .pace))
        }
        self.init(t: t, content)
    }
}
