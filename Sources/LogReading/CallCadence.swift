/// One ID's calls in time, kept as the stretches it was calling in, and its silences: the gaps
/// long against its own cadence. Pure: the times are the entries', passed in; nothing reads a clock.
///
/// Order-independent and bounded. Exports do not come sorted (`gcloud logging read` lists newest
/// first; a sink's folder holds one folder per log, so a vehicle's `update_vehicle` hours come
/// before its `get_vehicle` ones), so calls are not compared with the one before them in the
/// file. Calls within `floor` of each other join one stretch; only the gaps between stretches are
/// kept (at most `maxStretches`, the shortest gap closed first when there are more), so memory is
/// per ID, not per call.
///
/// A silence is a gap longer than max(`floor`, `factor` × the ID's median interval between calls):
/// - 60 s floor: the SDKs report a vehicle's location every few seconds while they run (the
///   Driver SDK's default reporting interval is 10 s; fleet-debugger's MissingUpdate.js assumes
///   "our default update is every 5 seconds"), and a token outlives a minute, so a shorter gap is
///   a bad signal or a slow request, not a device gone quiet.
/// - 10 × the median: fleet-debugger's own "significant missing update" rule (src/MissingUpdate.js,
///   `getSignificantMissingUpdates`: the median interval times ten, against 60 s). It takes the
///   smaller of the two and so flags gaps of 50 s in a 5 s cadence; here the larger is taken,
///   since a silence is read as a device refused or stopped, and a device that calls each 30 s
///   is silent only after 5 minutes of nothing.
/// The median is estimated without the calls: when at least half the intervals are inside
/// stretches (under `floor`), it is their mean; otherwise the gaps, which are kept, hold it.
public struct CallCadence: Sendable, Equatable {
    public static let floor: Double = 60
    public static let factor: Double = 10
    public static let maxStretches = 2048

    struct Stretch: Sendable, Equatable {
        var start: LogInstant
        var end: LogInstant
        var calls: Int
    }

    /// Sorted by start, each at least `floor` apart from the next.
    private(set) var stretches: [Stretch] = []
    private let floorMicros = Int64(CallCadence.floor * 1_000_000)

    public init() {}

    public mutating func add(_ time: LogInstant) {
        let t = time.microseconds
        // The first stretch whose end is not more than `floor` before t.
        var low = 0
        var high = stretches.count
        while low < high {
            let mid = (low + high) / 2
            if stretches[mid].end.microseconds + floorMicros < t { low = mid + 1 } else { high = mid }
        }
        if low < stretches.count, stretches[low].start.microseconds - floorMicros <= t {
            stretches[low].start = min(stretches[low].start, time)
            stretches[low].end = max(stretches[low].end, time)
            stretches[low].calls += 1
            // Grown toward the next one: join them when they now touch.
            if low + 1 < stretches.count,
                stretches[low + 1].start.microseconds - floorMicros <= stretches[low].end.microseconds
            {
                join(low)
            }
            if low > 0, stretches[low].start.microseconds - floorMicros <= stretches[low - 1].end.microseconds {
                join(low - 1)
            }
        } else {
            stretches.insert(Stretch(start: time, end: time, calls: 1), at: low)
            if stretches.count > Self.maxStretches { closeShortestGap() }
        }
    }

    /// Joins stretch `index` with the one after it.
    private mutating func join(_ index: Int) {
        let next = stretches.remove(at: index + 1)
        stretches[index].end = max(stretches[index].end, next.end)
        stretches[index].calls += next.calls
    }

    private mutating func closeShortestGap() {
        var best = 0
        var shortest = Int64.max
        for i in 0..<(stretches.count - 1) {
            let gap = stretches[i + 1].start.microseconds - stretches[i].end.microseconds
            if gap < shortest {
                shortest = gap
                best = i
            }
        }
        join(best)
    }

    /// The median interval between consecutive calls, in seconds; nil under two calls.
    public var medianInterval: Double? {
        let calls = stretches.reduce(0) { $0 + $1.calls }
        guard calls >= 2 else { return nil }
        let inside = calls - stretches.count
        let gaps = gapLengths.sorted()
        let total = inside + gaps.count
        let middle = (total - 1) / 2
        if middle < inside {
            let covered = stretches.reduce(0.0) { $0 + $1.start.seconds(to: $1.end) }
            return covered / Double(inside)
        }
        return gaps[middle - inside]
    }

    private var gapLengths: [Double] {
        zip(stretches, stretches.dropFirst()).map { $0.end.seconds(to: $1.start) }
    }

    /// The stretches the ID was calling in, in time order: what a timeline draws.
    public var callingStretches: [(start: LogInstant, end: LogInstant, calls: Int)] {
        stretches.map { ($0.start, $0.end, $0.calls) }
    }

    /// The gap a silence must be longer than.
    public var threshold: Double { max(Self.floor, Self.factor * (medianInterval ?? 0)) }

    /// The silences, in time order.
    public var silences: [Silence] {
        let limit = threshold
        return zip(stretches, stretches.dropFirst()).compactMap { before, after in
            let length = before.end.seconds(to: after.start)
            return length > limit ? Silence(start: before.end, seconds: length) : nil
        }
    }
}

/// A gap in one ID's calls: from its last call before (`start`) for `seconds`.
public struct Silence: Sendable, Equatable {
    public var start: LogInstant
    public var seconds: Double

    public init(start: LogInstant, seconds: Double) {
        self.start = start
        self.seconds = seconds
    }
}
