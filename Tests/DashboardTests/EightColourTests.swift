import Testing

@testable import Dashboard
@testable import UICore

/// On an 8-colour terminal (TERM=xterm, linux) greys must not turn into yellow, the warning colour.
@Suite(.timeLimit(.minutes(15))) struct EightColourTests {
    @Test(arguments: [ThemeColor.index(8), .index(240), .index(245), .rgb(128, 128, 128), .rgb(100, 104, 110)])
    func greysBecomeTheTerminalsOwnColour(_ grey: ThemeColor) {
        #expect(grey.isGrey)
        #expect(grey.resolved(colors: 8) == -1)
        #expect(grey.resolved(colors: 256) != -1, "with enough colours the grey is shown")
    }

    @Test(arguments: [ThemeColor.index(0), .index(15), .index(3), .rgb(255, 135, 0), .terminalDefault, .index(232)])
    func blackWhiteAndColoursAreNotGrey(_ colour: ThemeColor) {
        #expect(!colour.isGrey)
    }

    @Test func noRoleOfTheDefaultThemeIsYellowOnEightColoursUnlessItWarns() throws {
        let theme = try #require(try ThemeLoader.builtin("default"))
        let yellow = 3
        let brightYellow = 11
        for role in StyleRole.allCases
        where ![.warning, .gaugeMargin, .logWarning, .keyLabel, .selected].contains(role) {
            let fg = theme.style(role).foreground.resolved(colors: 8)
            #expect(fg != yellow && fg != brightYellow, "\(role) shows as yellow on 8 colours")
        }
    }
}
