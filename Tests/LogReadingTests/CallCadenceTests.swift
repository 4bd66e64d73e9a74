import LogReading
import Testing

/// Silences on times the test controls: gaps longer than max(60 s, 10 × the median interval),
/// the same whatever order the calls come in.
@Suite(.timeLimit(.minutes(15)))
struct CallCadenceTests {
    let t0 = LogInstant(microseconds: 1_714_557_600_000_000)

    func cadence(_ seconds: [Double]) -> CallCadence {
        var cadence = CallCadence()
        for s in seconds { cadence.add(t0.adding(seconds: s)) }
        return cadence
    }

    /// Every 5 s for two minutes, quiet for 5 minutes, then every 5 s again.
    var everyFiveWithAGap: [Double] {
        stride(from: 0.0, through: 120, by: 5).map { $0 } + stride(from: 420.0, through: 540, by: 5).map { $0 }
    }

    @Test func aGapLongAgainstTheCadenceIsASilence() {
        let cadence = cadence(everyFiveWithAGap)
        #expect(abs((cadence.medianInterval ?? 0) - 5) < 0.001)
        #expect(cadence.threshold == 60)
        #expect(cadence.silences == [Silence(start: t0.adding(seconds: 120), seconds: 300)])
    }

    @Test(arguments: ["reversed", "shuffled", "interleaved halves"])
    func orderDoesNotMatter(order: String) {
        var times = everyFiveWithAGap
        switch order {
        case "reversed": times.reverse()
        case "shuffled":
            var generator = SeededGenerator(seed: 42)
            times.shuffle(using: &generator)
        default:
            times =
                stride(from: 0, to: times.count, by: 2).map { times[$0] }
                + stride(from: 1, to: times.count, by: 2).map { times[$0] }
        }
        #expect(cadence(times).silences == cadence(everyFiveWithAGap).silences)
    }

    /// A device calling each 30 s is silent only after 10 × 30 s, not after the 60 s floor.
    @Test func theThresholdFollowsTheDevicesOwnCadence() {
        let times = stride(from: 0.0, through: 600, by: 30).map { $0 } + [840, 870] + [1500, 1530]
        let cadence = cadence(times)
        #expect(abs((cadence.medianInterval ?? 0) - 30) < 0.001)
        #expect(cadence.threshold == 300)
        // 600 → 840 (240 s) is under 300 s; 870 → 1500 (630 s) is a silence.
        #expect(cadence.silences == [Silence(start: t0.adding(seconds: 870), seconds: 630)])
    }

    /// When most intervals are long, the gaps hold the median.
    @Test func aSlowDevicesMedianComesFromItsGaps() {
        let cadence = cadence(stride(from: 0.0, through: 1200, by: 120).map { $0 } + [3600])
        #expect(cadence.medianInterval == 120)
        #expect(cadence.threshold == 1200)
        #expect(cadence.silences == [Silence(start: t0.adding(seconds: 1200), seconds: 2400)])
    }

    @Test func oneCallHasNoCadenceAndNoSilence() {
        let cadence = cadence([0])
        #expect(cadence.medianInterval == nil)
        #expect(cadence.silences.isEmpty)
    }

    /// Memory is per ID: a device with more long gaps than kept closes its shortest first.
    @Test func theStretchesKeptAreBounded() {
        let times = (0..<5000).map { Double($0) * 61 + Double($0 % 7) }
        let cadence = cadence(times)
        #expect(cadence.silences.count < CallCadence.maxStretches)
    }
}

/// SplitMix64: a shuffle the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
