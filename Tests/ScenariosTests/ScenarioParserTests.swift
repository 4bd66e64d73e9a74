import BoundedYAML
import Foundation
import Scenarios
import Testing

@Suite(.timeLimit(.minutes(15))) struct ScenarioParserTests {
    func parse(_ yaml: String) throws(FileProblem) -> Scenario { try ScenarioParser.parse(yaml, file: "demo.yaml") }

    func error(_ yaml: String) -> String {
        do { _ = try parse(yaml) } catch { return error.description }
        return "parsed"
    }

    let head = "name: demo\ndescription: a demo\nending: \"Shown: it\"\nsteps:\n"

    @Test func readsEveryAction() throws {
        let scenario = try parse(
            head + """
                  - at: 0s
                    caption: hello
                  - after: 1m30s
                    switch: trip
                  - switch: vehicle V-7
                  - at: 2m
                    fault: latency
                    delay: 1500ms
                    on: consumer
                  - fault: rate-limited
                  - clear: faults
                    on: driver
                  - refresh: both
                  - server-clock: -20m
                  - lifetime: 2m
                  - sdks: pause
                  - sdks: resume
                  - until: fetched driver
                    timeout: 30s
                  - after: previous
                    until: refresh-ahead
                """)
        #expect(
            scenario.steps.map(\.action) == [
                .say, .switchID(.consumer, id: nil), .switchID(.driver, id: "V-7"),
                .setFault(.latency, .consumer, latencyMilliseconds: 1500),
                .setFault(.rateLimited, .both, latencyMilliseconds: nil),
                .clearFaults(.driver), .refresh(.both), .serverClock(offset: -1200), .tokenLifetime(120),
                .setPaused(true), .setPaused(false),
                .until(ScenarioCondition(.event(.fetched), side: .driver), timeout: 30),
                .until(ScenarioCondition(.refreshAhead), timeout: 60),
            ])
        #expect(scenario.steps[0].caption == "hello")
        #expect(scenario.steps[1].timing == .after(90))
        #expect(scenario.steps[3].timing == .at(120))
        #expect(scenario.steps[3].line == 10)
    }

    @Test func mistakesAreReportedWithTheirLine() {
        #expect(
            error(head + "  - at: 0s\n    fault: http500\n    refresh: both\n")
                == "demo.yaml:7: two actions in one step (fault and refresh); give each its own step")
        #expect(
            error(head + "  - at: 0s\n    colour: red\n").hasPrefix("demo.yaml:6: unknown key \"colour\" in a step"))
        #expect(
            error(head + "  - after: soon\n    refresh: both\n").hasPrefix(
                "demo.yaml:5: after: \"soon\" is not a duration"))
        #expect(
            error(head + "  - fault: meteor\n").hasPrefix(
                "demo.yaml:5: unknown fault \"meteor\"; use one of latency, http500"))
        #expect(
            error(head + "  - at: 10s\n    refresh: both\n  - at: 5s\n    refresh: both\n")
                == "demo.yaml:7: at: 5s is before the step above (due at 10s): times may not go backwards")
        #expect(
            error(head + "  - after: 10s\n    refresh: both\n  - at: 5s\n    refresh: both\n").hasPrefix(
                "demo.yaml:7: at: 5s is before"))
        #expect(
            error("name: demo\nending: x\nsteps:\n  - refresh: both\ntitle: x\n")
                == "demo.yaml:5: unknown key \"title\"; a scenario has name, description, ending, steps")
        #expect(error("name: demo\nsteps:\n  - refresh: both\n") == "demo.yaml:1: missing ending:")
        #expect(
            error(head + "  - at: 1s\n")
                == "demo.yaml:5: a step needs an action (switch, fault, clear, refresh, server-clock, device-clock, lifetime, sdks, until) or a caption"
        )
        #expect(
            error(head + "  - refresh: both\n    timeout: 5s\n") == "demo.yaml:6: timeout: belongs to a until: step")
        #expect(
            error(head + "  - fault: http500\n    delay: 2s\n") == "demo.yaml:6: delay: only goes with fault: latency")
        #expect(error(head + "  - lifetime: 2h\n").hasPrefix("demo.yaml:5: lifetime: \"2h\" is outside 1s...1h"))
        #expect(error(head + "  - until: lunch\n").hasPrefix("demo.yaml:5: until: takes an event"))
        #expect(
            error(head + "  - switch: trip a/b\n")
                == "demo.yaml:5: switch: \"a/b\" is not a Fleet Engine ID: it contains '/'; Fleet Engine IDs may not contain / : ? , #"
        )
        #expect(error(head + "  - server-clock: 5x\n").hasPrefix("demo.yaml:5: server-clock: \"5x\" is not a duration"))
        #expect(
            error(head + "  - at: -5s\n    refresh: both\n").hasPrefix("demo.yaml:5: at: \"-5s\" is not a duration"))
        let syntax = error(head + "  - refresh: both\n   bad: [\n")
        #expect(
            syntax.hasPrefix("demo.yaml:6: YAML syntax") || syntax.hasPrefix("demo.yaml:7: YAML syntax"), "\(syntax)")
    }

    @Test func durations() {
        #expect(ScenarioDuration.parse("5s") == 5)
        #expect(ScenarioDuration.parse("500ms") == 0.5)
        #expect(ScenarioDuration.parse("1m30s") == 90)
        #expect(ScenarioDuration.parse("1h") == 3600)
        #expect(ScenarioDuration.parse("12") == 12)
        #expect(ScenarioDuration.parse("-20m", signed: true) == -1200)
        #expect(ScenarioDuration.parse("-20m") == nil)
        #expect(ScenarioDuration.parse("5 parsecs") == nil)
        #expect(ScenarioDuration.parse("") == nil)
        #expect(ScenarioDuration.format(90) == "1m30s")
        #expect(ScenarioDuration.format(-1200) == "-20m")
        #expect(ScenarioDuration.format(0.25) == "250ms")
    }

    @Test func aFileOrABuiltinByName() throws {
        #expect(try ScenarioCatalog.load("backend-outage").name == "backend-outage")
        #expect(throws: FileProblem.self) { try ScenarioCatalog.load("backend-outrage") }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).yaml")
        try (head + "  - at: 0s\n    fault: nope\n").write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try ScenarioCatalog.load(url.path)
            Issue.record("a bad file loaded")
        } catch {
            #expect(error.description.hasPrefix("\(url.path):6: unknown fault \"nope\""))
        }
    }

    /// docs/demo.md's example shows every action: it must stay a scenario that parses.
    @Test func theDemoPageExampleParses() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/demo.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let start = try #require(text.range(of: "```yaml\n"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let scenario = try ScenarioParser.parse(String(text[start.upperBound..<end.lowerBound]), file: "docs/demo.md")
        #expect(scenario.steps.count == 11)
        // All ten kinds of action.
        #expect(Set(scenario.steps.map { "\($0.action)".prefix(while: { $0 != "(" }) }).count == 10)
    }

    @Test func serverStepsAreRefusedWithAUserBackend() throws {
        let outage = try ScenarioCatalog.load("backend-outage")
        let problem = outage.problem(embeddedServer: false)
        #expect(problem?.contains("backend-outage changes the embedded token server") == true)
        #expect(problem?.hasPrefix("built-in backend-outage:") == true)
        #expect(outage.problem(embeddedServer: true) == nil)
        let plain = try parse(head + "  - refresh: both\n  - switch: trip\n")
        #expect(plain.problem(embeddedServer: false) == nil)
    }

    // MARK: numbers from outside

    @Test func everyDurationIsRangeCheckedWhereItIsRead() {
        // Each of these trapped (Double to Int) in the parser, in a message, or later in the server.
        #expect(
            error(head + "  - fault: latency\n    delay: 9999999999999h\n")
                == "demo.yaml:6: delay: \"9999999999999h\" is longer than 30 days")
        #expect(
            error(head + "  - lifetime: 9999999999999999h\n")
                == "demo.yaml:5: lifetime: \"9999999999999999h\" is outside 1s...1h (Fleet Engine accepts tokens of at most an hour)"
        )
        #expect(
            error(head + "  - server-clock: +9999999999999999h\n")
                == "demo.yaml:5: server-clock: \"+9999999999999999h\" is outside -1d...+1d (a server clock off by more is no demo of skew)"
        )
        #expect(
            error(head + "  - at: 1e300\n    refresh: both\n") == "demo.yaml:5: at: \"1e300\" is longer than 30 days")
        #expect(
            error(head + "  - after: 31d\n    refresh: both\n").hasPrefix(
                "demo.yaml:5: after: \"31d\" is not a duration"))
        #expect(
            error(head + "  - until: fetched\n    timeout: 721h\n")
                == "demo.yaml:6: timeout: \"721h\" is longer than 30 days")
        #expect(
            error(head + "  - after: 1e400h\n    refresh: both\n").hasPrefix(
                "demo.yaml:5: after: \"1e400h\" is not a duration"))
    }

    @Test func theBoundsThemselvesAreAccepted() throws {
        let scenario = try parse(
            head + """
                  - after: 720h
                    refresh: both
                  - server-clock: -24h
                  - server-clock: +1440m
                  - lifetime: 1h
                  - lifetime: 1s
                  - fault: latency
                    delay: 30m

                """)
        #expect(scenario.steps.count == 6)
    }

    @Test func aDurationBeyondAnyIntIsStillWritten() {
        #expect(ScenarioDuration.format(1e300) == "\(Int.max / 3600)h\(Int.max % 3600 / 60)m\(Int.max % 60)s")
        #expect(ScenarioDuration.format(-90) == "-1m30s")
    }

    @Test func randomBytesAreNotUTF8TextAtTheirLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).yaml")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var data = Data("name: x\nending: y\nsteps:\n  - refresh: \u{1}".utf8)
        data.append(contentsOf: [0xFF, 0x00, 0x80])
        try data.write(to: URL(fileURLWithPath: path))
        #expect(throws: FileProblem(file: path, line: 4, "the file is not UTF-8 text")) {
            try ScenarioCatalog.load(path)
        }
    }
}
