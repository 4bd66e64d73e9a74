import Testing

@testable import LogReading

/// The insertIds seen lately: each new one is new once, a repeat within the window is caught,
/// and the memory is two generations of at most `capacity` hashes.
@Suite(.timeLimit(.minutes(15)))
struct RecentSetTests {
    @Test func repeatsWithinTheWindowAreCaughtAcrossGrowthAndGenerations() {
        var recent = RecentSet(capacity: 1000)
        var wrong: [String] = []
        for index in 0..<5000 {
            if !recent.insert("id-\(index)") { wrong.append("id-\(index) new, read as a repeat") }
            // The one before, and one a generation back, are repeats still.
            if index > 0, recent.insert("id-\(index - 1)") { wrong.append("id-\(index - 1) again, read as new") }
            if index >= 900, recent.insert("id-\(index - 900)") { wrong.append("id-\(index - 900) again, read as new") }
        }
        // Two generations back is forgotten: new again.
        let forgotten = recent.insert("id-0")
        #expect(wrong.isEmpty)
        #expect(forgotten)
    }
}
