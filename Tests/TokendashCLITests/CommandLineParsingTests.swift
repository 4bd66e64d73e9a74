import ArgumentParser
import Foundation
import Testing

@testable import HeadlessCommands
@testable import TokendashCLI

/// The command line parsed in-process, as the executable parses it: the commands chosen, flags
/// at both ends of their ranges, repeated flags kept in order, and a refused value's message.
/// No socket, no process; the binary's own end-to-end tests (ArgumentsEndToEndTests) run the same
/// lines through a real process.
@Suite(.timeLimit(.minutes(15)))
struct CommandLineParsingTests {
    /// The message and exit code ArgumentParser gives for `arguments`, or nil when they parse.
    static func refusal(_ arguments: [String]) -> (message: String, code: Int32)? {
        do {
            _ = try TokenDash.parseAsRoot(arguments)
            return nil
        } catch {
            return (TokenDash.message(for: error), TokenDash.exitCode(for: error).rawValue)
        }
    }

    @Test func noCommandIsTheDashboard() throws {
        #expect(try TokenDash.parseAsRoot([]) is DashboardCommand)
        #expect(try TokenDash.parseAsRoot(["watch"]) is WatchCommand)
        #expect(try TokenDash.parseAsRoot(["setup", "objc"]) is SetupObjCCommand)
    }

    @Test func callersAreCheckedAtBothEnds() throws {
        let lowest = try #require(try TokenDash.parseAsRoot(["watch", "--callers", "1"]) as? WatchCommand)
        #expect(lowest.callers == 1)
        let highest = try #require(try TokenDash.parseAsRoot(["watch", "--callers", "10000"]) as? WatchCommand)
        #expect(highest.callers == 10000)
        for refused in ["0", "10001"] {
            let answer = try #require(Self.refusal(["watch", "--callers", refused]))
            #expect(answer.message == "--callers must be between 1 and 10000")
            #expect(answer.code == 64)
        }
    }

    /// A class in several files: each `--driver-source` kept, in the order given.
    @Test func sourceFlagsRepeatInOrder() throws {
        let watch = try #require(
            try TokenDash.parseAsRoot([
                "watch", "--driver-source", "Provider.m", "--driver-source", "TokenFetcher.m", "--consumer-source",
                "Trip.swift",
            ]) as? WatchCommand)
        #expect(watch.backend.source(.driver)?.paths == ["Provider.m", "TokenFetcher.m"])
        #expect(watch.backend.source(.consumer)?.paths == ["Trip.swift"])
        #expect(watch.backend.ownProvider.driverSource == "Provider.m", "a profile's one file fills the first")
    }

    @Test func setupObjCTakesItsSourcesAndClang() throws {
        let setup = try #require(
            try TokenDash.parseAsRoot(["setup", "objc", "--sources", "/v/objc", "--clang", "/t/clang"])
                as? SetupObjCCommand)
        #expect(setup.sources == "/v/objc")
        #expect(setup.clang == "/t/clang")
        let unknown = try #require(Self.refusal(["setup", "swift"]))
        #expect(unknown.message.contains("swift"), "\(unknown.message)")
    }
}

/// The man page is generated from these texts (scripts/release.sh), and lintian fails the .deb on
/// any warning man gives: an empty line inside a discussion is one ("mdoc warning: Empty input
/// line"), as is a character groff cannot set.
@Suite(.timeLimit(.minutes(15)))
struct ManPageTextTests {
    static func commands(_ command: ParsableCommand.Type) -> [ParsableCommand.Type] {
        [command] + command.configuration.subcommands.flatMap(commands)
    }

    @Test func noDiscussionHasAnEmptyLine() {
        let all = Self.commands(TokenDash.self)
        #expect(all.count > 10)
        for command in all {
            let discussion = command.configuration.discussion
            #expect(!discussion.contains("\n\n"), "\(command.configuration.commandName ?? "?") has an empty line")
        }
    }
}
