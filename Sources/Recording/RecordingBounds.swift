import Foundation
import ProviderVocabulary
import RecordingFormat
import Settings

/// A recording's numbers checked as it is read (`InputBounds`), so that no replay (its clock,
/// its sums of counts, its screen) can trap on a file someone edited or garbled: a value out of
/// range is a line that cannot be read, with the field, the value and the bound.
enum RecordingBounds {
    /// Screen sizes and click positions: larger than any terminal, small enough to allocate.
    static let largestWidth = 2000, largestHeight = 1000
    /// Marks, member indices and backoff attempts.
    static let largestIndex = 1_000_000
    /// A pace's calls a second: well past any backend's, far from a float's overflow.
    static let largestRate = 1_000_000_000.0
    /// Expiries and backoff ends may lie further off than the lines' own times: the response
    /// decoder takes expiries up to about 317 years away.
    static let farthestInstant: TimeInterval = 400 * 365 * 86_400

    static func header(_ header: RecordingHeader) throws(RecordingLineError) {
        guard header.start.isFinite, InputBounds.recordingStart.contains(header.start) else {
            throw .invalid("start \(number(header.start)) is not a time between the years 1901 and 2100")
        }
        try duration("refresh_margin", header.refreshMargin)
        if let interval = header.updateInterval { try duration("update_interval", interval) }
        if let limit = header.churnLimit, !(limit.isFinite && limit >= 1 && limit <= 1000) {
            throw .invalid("churn_limit \(number(limit)) is not between 1 and 1000 (tap's --churn-limit)")
        }
        let most = Setting.fleetSizes.upperBound
        for (kind, ids) in header.members where ids.count > most {
            throw .invalid("members: \(kind) lists \(ids.count) members, more than a run has (\(most))")
        }
    }

    static func line(_ line: RecordedLine) throws(RecordingLineError) {
        try offset("t", line.t)
        switch line.content {
        case .event(let event): try self.event(event)
        case .click(let x, let y):
            try count("x", x, 0...largestWidth)
            try count("y", y, 0...largestHeight)
        case .resize(let width, let height):
            try count("width", width, 1...largestWidth)
            try count("height", height, 1...largestHeight)
        case .following(_, let index, let member):
            try count("index", index, 0...largestIndex)
            if let token = member.token { try self.token(token) }
        case .memberFound(_, _, let index, let from):
            try count("index", index, 0...largestIndex)
            try count("from", from, 0...largestIndex)
        case .mark(let index, let at, _):
            if let at { try offset("at", at) }
            try count("index", index, 0...largestIndex)
        case .faultLatency(let milliseconds):
            try count("milliseconds", milliseconds, 0...Int(InputBounds.longestDuration) * 1000)
        case .pace(let pace?): try self.pace(pace)
        case .key, .tick, .theme, .faults, .message, .scenario, .sdksPaused, .pace(nil): break
        }
    }

    /// Calls a second up to the most any pacer allows, and a window and calls in flight no
    /// larger than a fleet.
    static func pace(_ pace: RecordedPace) throws(RecordingLineError) {
        for (field, rate) in [("rate", pace.rate), ("ceiling", pace.ceiling), ("floor", pace.floor)] {
            guard rate.isFinite, rate >= 0, rate <= largestRate else {
                throw .invalid("pace \(field) \(number(rate)) is not 0 to \(Int(largestRate)) calls a second")
            }
        }
        if let seconds = pace.seconds { try duration("pace seconds", seconds) }
        try count("pace count", pace.count, 0...InputBounds.largestCount)
        try count("pace in_flight", pace.inFlight, 0...Int.max)
        try count("pace window", pace.window, 0...Int.max)
    }

    static func event(_ event: RecordedEvent) throws(RecordingLineError) {
        try offset("time", event.time)
        try count("count", event.count, 0...InputBounds.largestCount)
        if let latency = event.latency { try duration("latency", latency) }
        if let at = event.at { try instant("at", at) }
        try count("attempt", event.attempt, 0...largestIndex)
        if let token = event.token { try self.token(token) }
        if let error = event.error {
            try count("status", error.status, 0...999)
            try count("retry_after", error.retryAfter, 0...Int(InputBounds.longestDuration))
        }
        if let answer = event.answer {
            try count("http_status", answer.httpStatus, 0...999)
            try duration("latency", answer.latency)
        }
    }

    static func token(_ token: RecordedToken) throws(RecordingLineError) {
        try instant("expires_at", token.expiresAt)
        try instant("received_at", token.receivedAt)
        if let refreshAt = token.refreshAt { try instant("refresh_at", refreshAt) }
        if let skew = token.clockSkew { try instant("clock_skew", skew) }
    }

    /// A line's own time, in seconds from the start: within ten years of it.
    private static func offset(_ field: String, _ value: Double) throws(RecordingLineError) {
        guard InputBounds.within(value, InputBounds.recordedOffset) else {
            throw .invalid("\(field) \(number(value)) is not within 10 years of the recording's start")
        }
    }

    private static func instant(_ field: String, _ value: Double) throws(RecordingLineError) {
        guard InputBounds.within(value, farthestInstant) else {
            throw .invalid("\(field) \(number(value)) is not within 400 years of the recording's start")
        }
    }

    private static func duration(_ field: String, _ value: Double) throws(RecordingLineError) {
        guard value.isFinite, value >= 0, value <= InputBounds.longestDuration else {
            throw .invalid(
                "\(field) \(number(value)) is not 0 to \(InputBounds.describe(InputBounds.longestDuration)) of seconds")
        }
    }

    private static func count(_ field: String, _ value: Int?, _ range: ClosedRange<Int>) throws(RecordingLineError) {
        guard let value, !range.contains(value) else { return }
        throw .invalid("\(field) \(value) is outside \(range.lowerBound)...\(range.upperBound)")
    }

    /// As the file wrote it, near enough: `1e+300`, `-5.5`, `12`.
    private static func number(_ value: Double) -> String { "\(value)" }
}
