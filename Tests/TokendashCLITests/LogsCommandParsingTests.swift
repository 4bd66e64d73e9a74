import ArgumentParser
import Testing

@testable import TokendashCLI

/// `tokendash logs` parsed in-process: inputs kept in order, `--fail-on` repeated.
@Suite(.timeLimit(.minutes(15)))
struct LogsCommandParsingTests {
    @Test func logsTakesInputsAndRepeatedFailOn() throws {
        let command = try #require(
            try TokenDash.parseAsRoot([
                "logs", "a.json.gz", "-", "sink/", "--summary", "--fail-on", "PERMISSION_DENIED", "--fail-on",
                "silence",
            ]) as? LogsCommand)
        #expect(command.inputs == ["a.json.gz", "-", "sink/"])
        #expect(command.summary)
        #expect(command.failOn == ["PERMISSION_DENIED", "silence"])
    }

    @Test func logsNeedsAnInput() {
        #expect(throws: (any Error).self) { try TokenDash.parseAsRoot(["logs", "--summary"]) }
    }
}
