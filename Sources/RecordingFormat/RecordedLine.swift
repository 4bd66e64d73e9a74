import FleetTables
import Foundation
import ProviderVocabulary

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

    public init(_ member: MemberSnapshot, base: RecordingTimeBase) {
        id = member.id
        token = member.token.map { RecordedToken($0, base: base) }
        lastError = member.lastError.map(Redaction.text)
        fetching = member.fetching
    }

    public func snapshot(base: RecordingTimeBase) -> MemberSnapshot {
        MemberSnapshot(id: id, token: token?.token(base: base), lastError: lastError, fetching: fetching)
    }
}
