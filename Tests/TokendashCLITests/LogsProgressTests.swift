import Testing

@testable import TokendashCLI

/// A long read says how far it is; a short one says nothing, and the lines come no faster than
/// the eye follows. Time is given, not read from a clock.
@Suite(.timeLimit(.minutes(15)))
struct LogsProgressTests {
    @Test func aShortReadSaysNothing() {
        var progress = LogsProgress()
        #expect(progress.line(elapsed: .milliseconds(1_999), bytes: 50_000_000, entries: 26_000) == nil)
        #expect(!progress.saidAnything)
    }

    @Test func aLongReadSaysBytesEntriesAndRateAtMostTwiceASecond() {
        var progress = LogsProgress()
        #expect(
            progress.line(elapsed: .seconds(2), bytes: 62_000_000, entries: 32_512)
                == "62 MB read, 32,512 entries, 31 MB/s")
        #expect(progress.saidAnything)
        #expect(progress.line(elapsed: .milliseconds(2_400), bytes: 74_000_000, entries: 38_000) == nil)
        #expect(
            progress.line(elapsed: .milliseconds(2_500), bytes: 1_250_000_000, entries: 1_234_567)
                == "1,250 MB read, 1,234,567 entries, 500 MB/s")
    }
}
