import Foundation

/// Where a replay stands, as the header shows it: the recorded time played to, the speed, and
/// whether it plays. Set by the replay source; nil when the dashboard is live.
public struct ReplayStatus: Equatable, Sendable {
    public static let speeds = [1, 4, 16]

    public var position: Date
    public var start: Date
    public var end: Date
    public var speed: Int
    public var paused: Bool

    public init(position: Date, start: Date, end: Date, speed: Int = 1, paused: Bool = false) {
        self.position = position
        self.start = start
        self.end = end
        self.speed = speed
        self.paused = paused
    }

    /// The next of `speeds` after this one, round.
    public var nextSpeed: Int {
        let all = Self.speeds
        return all[((all.firstIndex(of: speed) ?? -1) + 1) % all.count]
    }

    /// `replay 12:03:04 ▶ ×4 0:42/5:00`: what the header says (‖ and "paused" when paused).
    public func text(_ timeZone: TimeZone) -> String {
        let played = Int(position.timeIntervalSince(start).rounded(.down))
        let total = Int(end.timeIntervalSince(start).rounded(.down))
        return
            "replay \(Format.clock(position, timeZone)) \(paused ? "‖ paused" : "▶") ×\(speed) \(Self.minutes(played))/\(Self.minutes(total))"
    }

    static func minutes(_ seconds: Int) -> String {
        "\(max(0, seconds) / 60):" + (max(0, seconds) % 60 < 10 ? "0" : "") + "\(max(0, seconds) % 60)"
    }
}

/// What a replay key asks the replay source to do.
public enum ReplayControl: Hashable, Sendable {
    case togglePause
    /// Pause, and play to the next recorded event (not a tick).
    case step
    /// Seek by this many recorded seconds (negative: back).
    case seek(TimeInterval)
    case toStart, toEnd
    case nextSpeed
}
