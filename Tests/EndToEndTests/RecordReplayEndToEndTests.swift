import Foundation
import Redaction
import Testing

/// `watch --record` then `replay --to-watch`: the real binary, the embedded server, loopback HTTP.
@Suite(.serialized, .timeLimit(.minutes(15))) struct RecordReplayEndToEndTests {
    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)").path
    }

    @Test func aWatchRecordingReplaysAsTheLinesWatchPrinted() async throws {
        let path = Self.temporaryPath("watch.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let watch = try await BinaryRunner.run([
            "watch", "--record", path, "--duration", "3", "--update-interval", "0.5", "--lifetime", "1",
            "--header", "X-Api-Key:topsecret", "--reveal",
        ])
        // Tokens of 1 s expire between updates: fetches, hits, expiries and refreshes all happen.
        let printed = watch.stdout.split(separator: "\n")
        #expect(printed.count > 10, "\(watch.stderr)")
        let recording = try String(contentsOfFile: path, encoding: .utf8)
        let header = try #require(recording.split(separator: "\n").first)
        #expect(header.contains("\"format\":\"tokendash-recording\"") && header.contains("\"version\":1"))
        #expect(header.contains("\"tokendash\":\"tokendash 0.3.0 (dev build)\""))
        #expect(header.contains("X-Api-Key:‹hidden›") && !recording.contains("topsecret"))
        // --reveal printed whole tokens; the recording holds none of them.
        let wholeTokens = printed.compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return object["token"] as? String
        }
        #expect(!wholeTokens.isEmpty)
        for token in wholeTokens { #expect(token.split(separator: ".").count == 3 && !recording.contains(token)) }

        let replay = try await BinaryRunner.run(["replay", path, "--to-watch"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.isEmpty)
        // The same lines, tokens redacted as watch prints them without --reveal.
        let expected = printed.map { line in
            wholeTokens.reduce(String(line)) { text, token in
                text.replacingOccurrences(of: token, with: Self.redacted(token))
            }
        }
        #expect(replay.stdout.split(separator: "\n").map(String.init) == expected)
    }

    /// A dashboard session recorded and replayed in tmux (scripts/e2e-replay-tmux.sh).
    @Test(.enabled(if: DashboardEndToEndTests.tmuxInstalled, "needs tmux"))
    func recordsTheDashboardAndReplaysItInTmux() async throws {
        let (status, text) = try await BinaryRunner.runScript(named: "e2e-replay-tmux.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains("e2e-replay: ok"))
    }

    @Test func aRecordingCutShortStillPrintsWhatCameBeforeAndSaysWhere() async throws {
        let path = Self.temporaryPath("cut.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let watch = try await BinaryRunner.run(["watch", "--record", path, "--duration", "1"])
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n").count
        text += String(text.split(separator: "\n").last?.prefix(40) ?? "")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let replay = try await BinaryRunner.run(["replay", path, "--to-watch"])
        #expect(replay.status == 0)
        #expect(replay.stdout == watch.stdout)
        #expect(
            replay.stderr.hasPrefix("tokendash: \(path):\(lines + 1): truncated or garbled last line; showing the"),
            "\(replay.stderr)")
        #expect(replay.stderr.split(separator: "\n").count == 1)
    }

    @Test func aMissingOrForeignFileIsOneLineAndExit2() async throws {
        let missing = try await BinaryRunner.run(["replay", "/nonexistent/r.jsonl", "--to-watch"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "tokendash: replay /nonexistent/r.jsonl: no such file\n")
        let path = Self.temporaryPath("foreign.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "{\"hello\":1}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let foreign = try await BinaryRunner.run(["replay", path])
        #expect(foreign.status == 2)
        #expect(
            foreign.stderr
                == "tokendash: replay \(path):1: not a tokendash recording: its first line is not a tokendash recording header\n"
        )
    }

    @Test func anUnwritableRecordingIsOneLineBeforeAnythingStarts() async throws {
        let watch = try await BinaryRunner.run(["watch", "--record", "/nonexistent/dir/r.jsonl", "--duration", "1"])
        #expect(watch.status == 2)
        #expect(watch.stdout.isEmpty)
        #expect(watch.stderr == "tokendash watch: --record /nonexistent/dir/r.jsonl: No such file or directory\n")
        let speed = try await BinaryRunner.run(["replay", "x.jsonl", "--speed", "3"])
        #expect(speed.status == 64)
        #expect(speed.stderr.contains("--speed must be one of 1, 4, 16"))
    }

    /// `TokenRedactor.redact`, as watch prints a token without --reveal.
    static func redacted(_ token: String) -> String {
        let parts = token.split(separator: ".")
        return "\(parts[0].prefix(12))…\(parts[2].suffix(6))"
    }
}
