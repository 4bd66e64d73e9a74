import Settings
import Testing

/// Each entry agrees with itself: its default obeys its own rule, its help shows what the README
/// and the messages say, and the refusals read as the flags' and the config file's messages.
@Suite("Settings table", .timeLimit(.minutes(15)))
struct SettingTableTests {
    @Test(arguments: Setting.allCases)
    func theDefaultObeysItsOwnRule(_ setting: Setting) {
        guard let value = setting.entry.defaultValue else { return }
        #expect(
            setting.refusal(text: value) == nil,
            "\(setting.flag)'s default \(value) is refused: \(setting.refusal(text: value) ?? "")")
        if case .choice(let choices) = setting.kind {
            #expect(choices.contains(value), "\(setting.flag)'s default \(value) is no choice")
        }
        #expect(setting.help.hasSuffix("(default: \(value))"))
    }

    @Test(arguments: Setting.allCases)
    func theHelpShowsTheRange(_ setting: Setting) {
        guard let limit = setting.limit else { return }
        #expect(setting.help.contains("(\(limit))"), "\(setting.flag): \(setting.help)")
    }

    @Test func refusalsReadAsTheMessagesUsersSee() {
        #expect(Setting.lifetime.refusal(4000) == "must be between 1 and 3600 seconds")
        #expect(Setting.trips.refusal(0) == "must be between 1 and 100000")
        #expect(Setting.refreshMargin.refusal(-1) == "must be 0 seconds to 30 days")
        #expect(Setting.updateInterval.refusal(Double.nan) == "must be 0.05 seconds to 30 days")
        #expect(Setting.fleetEngineInterval.refusal(0.5) == "must be 1 second to 30 days")
        #expect(Setting.timeout.refusal(0) == "must be more than 0 seconds and at most 30 days")
        #expect(Setting.ramp.refusal(86_401) == "must be 0 seconds to 1 day")
        #expect(Setting.timeout.refusal(text: "inf") == "must be a number of seconds, got inf")
        #expect(
            Setting.vehicles.refusal(text: "99999999999999999999") == "must be a whole number, got 99999999999999999999"
        )
        #expect(Setting.timeout.refusal(10) == nil && Setting.lifetime.refusal(3600) == nil)
    }

    @Test func limitsReadAsTheReadmeWritesThem() {
        #expect(Setting.lifetime.limit == "1 s to 1 h")
        #expect(Setting.trips.limit == "1 to 100,000")
        #expect(Setting.duration.limit == "more than 0 s, at most 30 days")
        #expect(Setting.solution.limit == nil)
    }

    @Test func watchFlagsAreNoConfigKeys() {
        #expect(!Setting.inConfigFile.contains(.duration) && !Setting.inConfigFile.contains(.callers))
        #expect(Setting.inConfigFile.filter(\.allowedInDefaults).count == 11)
    }
}
