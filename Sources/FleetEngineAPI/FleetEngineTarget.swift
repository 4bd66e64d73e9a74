import Foundation

/// Where a group's Fleet Engine calls go, and how often.
public struct FleetEngineTarget: Sendable, Equatable {
    /// `https://fleetengine.googleapis.com`, or the embedded emulator's base URL.
    public var base: URL
    /// The Google Cloud project ID: `providers/{provider}` in every path.
    public var provider: String
    /// Whether driver SDKs send their location updates; otherwise they read their vehicle.
    public var writes: Bool
    /// One SDK calls at most once per interval, so a fleet cannot flood a real project.
    public var interval: TimeInterval
    public var timeout: TimeInterval

    public static let defaultInterval: TimeInterval = 10
    /// At most this many calls a second from one run, whatever its size: 100,000 SDKs calling
    /// every 10 s would be 10,000 calls a second, more than a laptop can make or a project should
    /// take. A larger fleet calls less often each (`interval(for:asked:)`).
    public static let maximumRate: Double = 1000

    /// The interval each of `sdks` SDKs keeps: `asked`, or longer so the run stays within `maximumRate`.
    public static func interval(for sdks: Int, asked: TimeInterval) -> TimeInterval {
        max(asked, Double(max(0, sdks)) / maximumRate)
    }

    public init(
        base: URL, provider: String, writes: Bool, interval: TimeInterval = defaultInterval, timeout: TimeInterval = 10
    ) {
        self.base = base
        self.provider = provider
        self.writes = writes
        self.interval = interval
        self.timeout = timeout
    }
}
