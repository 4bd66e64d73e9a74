import BoundedYAML
import DashboardRuntime
import Foundation
import Testing

@testable import Dashboard
@testable import UICore

@Suite(.timeLimit(.minutes(15))) struct ThemeTests {
    static let themesDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Dashboard/Theme/Themes")

    func parse(_ yaml: String) throws(FileProblem) -> Theme { try ThemeLoader.parse(yaml, name: "t", file: "t.yaml") }

    @Test(arguments: ["default", "light", "high-contrast", "mono"])
    func shippedThemesParseFromTheirFilesAndAreBuiltIn(name: String) throws {
        #expect(ThemeLoader.builtinNames.contains(name))
        #expect(try ThemeLoader.builtin(name)?.styles.count == StyleRole.allCases.count)
        let theme = try ThemeCatalog(directories: [Self.themesDir]).load(name)
        #expect(theme.styles.count == StyleRole.allCases.count, "every role is styled")
    }

    @Test func readsColoursInEveryNotation() throws {
        let theme = try parse(
            """
            palette:
              accent: &a "#ff8700"
            body: { fg: default, bg: 236 }
            status:
              ok: green
              error: { fg: 9, bold: true, reverse: true }
            frame:
              focused: { fg: *a, underline: true }
            """)
        #expect(theme.style(.text) == ThemeStyle(foreground: .terminalDefault, background: .index(236)))
        #expect(theme.style(.ok).foreground == .index(2))
        #expect(theme.style(.error) == ThemeStyle(foreground: .index(9), bold: true, reverse: true))
        #expect(theme.styles[.borderFocused] == ThemeStyle(foreground: .rgb(255, 135, 0), underline: true))
        #expect(theme.style(.borderFocused).background == .index(236), "a role without a background takes the body's")
        #expect(theme.style(.error).background == .terminalDefault, "reverse video keeps its own")
        #expect(theme.style(.logHit) == theme.style(.text), "an unstyled role falls back to the body")
    }

    @Test func brokenFilesNameTheFileAndLine() {
        let cases: [(String, String)] = [
            ("body: { fg: red\nstatus: x", "t.yaml:2: YAML syntax:"),
            ("body: {}\nframs:\n  border: red", "t.yaml:2: unknown key \"frams\""),
            ("status:\n  ok: green\n  okay: red", "t.yaml:3: unknown key \"status.okay\""),
            (
                "status:\n  ok: purpel",
                "t.yaml:2: status.ok: \"purpel\" is not a colour (a name, 0-255, #rrggbb or default)"
            ),
            ("body: { fg: \"#12345\" }", "t.yaml:1: body.fg: \"#12345\" is not a colour"),
            ("body: { fg: 256 }", "t.yaml:1: body.fg: \"256\" is not a colour"),
            ("header:\n  bold: maybe", "t.yaml:2: header.bold must be true or false"),
            ("header: { blink: true }", "t.yaml:1: unknown attribute \"blink\" in header"),
            ("- a\n- b", "t.yaml:1: a theme is a mapping"),
            ("status: red", "t.yaml:1: \"status\" must be a mapping of styles"),
        ]
        for (yaml, expected) in cases {
            do {
                _ = try parse(yaml)
                Issue.record("accepted: \(yaml)")
            } catch {
                #expect(error.description.hasPrefix(expected), "\(error.description) should start with \(expected)")
                #expect(!error.description.contains("\n"))
            }
        }
    }

    @Test func unknownNameListsTheAvailableThemes() {
        #expect(
            throws: FileProblem(
                file: "neon", line: nil, "unknown theme; available: default, high-contrast, light, mono")
        ) {
            try ThemeCatalog(directories: []).load("neon")
        }
    }

    @Test func filesOverrideAndExtendTheBuiltIns() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-themes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "body: { fg: magenta }".write(
            to: dir.appendingPathComponent("neon.yaml"), atomically: true, encoding: .utf8)
        try "body: { fg: bogus }".write(
            to: dir.appendingPathComponent("default.yaml"), atomically: true, encoding: .utf8)
        let catalog = ThemeCatalog(directories: [dir])
        #expect(catalog.names == ["default", "high-contrast", "light", "mono", "neon"])
        #expect(try catalog.load("neon").style(.text).foreground == .index(5))
        #expect(throws: FileProblem.self) { try catalog.load("default") }
    }

    @Test func noColorMeansMono() {
        #expect(ThemeCatalog.initialThemeName(requested: nil, environment: ["NO_COLOR": "1"]) == "mono")
        #expect(ThemeCatalog.noColor(requested: nil, environment: ["NO_COLOR": "1"]))
        #expect(
            ThemeCatalog.initialThemeName(requested: "light", environment: ["NO_COLOR": "1"]) == "light",
            "an explicit --theme wins")
        #expect(!ThemeCatalog.noColor(requested: "light", environment: ["NO_COLOR": "1"]))
        #expect(ThemeCatalog.initialThemeName(requested: nil, environment: ["NO_COLOR": ""]) == "default")
        #expect(ThemeCatalog.initialThemeName(requested: "light", environment: [:]) == "light")
    }

    @Test func monochromeKeepsBoldAndReverseOnly() throws {
        let theme = try ThemeCatalog(directories: []).load("default").monochrome
        for role in StyleRole.allCases {
            #expect(
                theme.style(role).foreground == .terminalDefault && theme.style(role).background == .terminalDefault)
        }
        #expect(theme.style(.header).bold)
        #expect(theme.style(.selected).reverse)
    }

    @Test func coloursDegradeToWhatTheTerminalHas() {
        #expect(ThemeColor.rgb(255, 135, 0).resolved(colors: 256) == 208)
        #expect(ThemeColor.rgb(255, 135, 0).resolved(colors: 16) == 3, "orange is nearest to ANSI yellow")
        #expect(ThemeColor.rgb(0, 0, 0).resolved(colors: 16) == 0)
        #expect(ThemeColor.index(236).resolved(colors: 256) == 236)
        #expect(ThemeColor.index(196).resolved(colors: 16) == 9, "xterm 196 is pure red")
        #expect(ThemeColor.index(12).resolved(colors: 8) == 4, "xterm 12 (92,92,255) is nearest to ANSI blue (0,0,238)")
        #expect(ThemeColor.terminalDefault.resolved(colors: 256) == -1)
    }
}
