import Foundation
import Testing

@testable import Dashboard

@Suite(.timeLimit(.minutes(15))) struct FormatTests {
    /// The fleet rows' one-decimal figures read as `%.1f` wrote them, for the values they show.
    @Test func tenthsPrintsAsPercentPointOneF() {
        var generator = SystemRandomNumberGenerator()
        let samples: [Double] =
            [0, 0.04, 0.05, 0.15, 0.95, 1, 9.95, 12.34, 99.99, 1234.5678, 1e9 + 0.3]
            + (0..<2000).map { _ in Double.random(in: 0..<10_000, using: &generator) }
        for value in samples {
            #expect(Format.tenths(value) == String(format: "%.1f", value) || Self.isTie(value), "\(value)")
        }
        #expect(Format.tenths(.infinity) == String(format: "%.1f", Double.infinity))
    }

    /// A value whose tenths sit on a rounding tie once scaled, where the two may round apart.
    static func isTie(_ value: Double) -> Bool {
        let scaled = value * 10
        return abs(scaled - scaled.rounded(.down) - 0.5) < 1e-6
    }

    @Test func replayPositionsAreMinutesAndSeconds() {
        let start = Date(timeIntervalSince1970: 0)
        let status = ReplayStatus(
            position: start.addingTimeInterval(65), start: start, end: start.addingTimeInterval(605))
        #expect(status.text(TimeZone(identifier: "UTC") ?? .current).hasSuffix("1:05/10:05"))
    }
}
