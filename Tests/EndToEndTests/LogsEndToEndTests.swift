import Dashboard
import Foundation
import ProviderEvents
import ProviderVocabulary
import Recording
import RecordingFormat
import Testing

/// `tokendash logs --summary` as a support engineer runs it on a customer's export: a gzip file
/// from a sink, and `gcloud logging read … | tokendash logs - --summary`.
@Suite(.timeLimit(.minutes(15))) struct LogsEndToEndTests {
    /// Fleet Engine entries in Cloud Logging's JSON: vehicle-1 on Android every 5 s with a
    /// 5-minute silence and one PERMISSION_DENIED; trip-1 on its first calls.
    static var exportLines: String {
        var lines: [String] = []
        let times = stride(from: 0, through: 120, by: 5).map { $0 } + stride(from: 420, through: 540, by: 5).map { $0 }
        for (n, t) in times.enumerated() {
            let stamp = String(format: "2024-05-01T10:%02d:%02d.000Z", t / 60, t % 60)
            let trip = t < 60 ? #","trip_id":"trip-1""# : ""
            let failed = t == 540
            let payload =
                failed
                ? #""errorResponse":{"code":"PERMISSION_DENIED","httpStatusCode":403,"message":"denied"}"#
                : #""response":{"name":"providers/p/vehicles/vehicle-1"}"#
            lines.append(
                #"{"insertId":"i\#(n)","logName":"projects/p/logs/fleetengine.googleapis.com%2Fupdate_vehicle","#
                    + #""resource":{"type":"fleetengine.googleapis.com/Fleet"},"labels":{"vehicle_id":"vehicle-1"\#(trip)},"#
                    + #""timestamp":"\#(stamp)",\#(failed ? #""severity":"ERROR","# : "")"#
                    + #""jsonPayload":{"@type":"type.googleapis.com/maps.fleetengine.v1.UpdateVehicleLog","#
                    + #""request":{"header":{"sdkVersion":"5.0.0","osVersion":"14","platform":"PLATFORM_LOG_ANDROID","#
                    + #""sdkType":"SDK_TYPE_LOG_DRIVER"}},\#(payload)}}"#)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static func summary(_ stdout: String) throws -> [String: Any] {
        let line = try #require(stdout.split(separator: "\n").first { $0.hasPrefix("{") })
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func check(_ summary: [String: Any]) throws {
        #expect(summary["event"] as? String == "logs_summary")
        #expect(summary["entries"] as? Int == 50)
        let ids = try #require(summary["ids"] as? [[String: Any]])
        let vehicle = try #require(ids.first { $0["id"] as? String == "vehicle-1" })
        #expect(vehicle["kind"] as? String == "vehicle")
        #expect(vehicle["calls"] as? Int == 50)
        #expect(vehicle["errors"] as? [String: Int] == ["PERMISSION_DENIED": 1])
        #expect(vehicle["longest_silence_s"] as? Double == 300)
        #expect(vehicle["platform"] as? String == "ANDROID")
        #expect(vehicle["sdk_version"] as? String == "5.0.0")
        #expect(vehicle["methods"] as? [String: Int] == ["update_vehicle": 50])
        #expect(ids.first { $0["id"] as? String == "trip-1" }?["calls"] as? Int == 12)
        let versions = try #require(summary["versions"] as? [[String: Any]])
        #expect(versions.count == 1)
        #expect(versions.first?["devices"] as? Int == 1)
        #expect(versions.first?["silences"] as? Int == 1)
    }

    @Test(.enabled(if: tool("gzip") != nil, "needs gzip"))
    func aGzipExportIsSummarized() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-logs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("10:00:00_10:59:59_S0.json")
        try Data(Self.exportLines.utf8).write(to: file)
        let zipped = try await BinaryRunner.run(
            ["-f", file.path], executable: URL(fileURLWithPath: try #require(Self.tool("gzip"))))
        try #require(zipped.status == 0, "\(zipped.stderr)")
        let result = try await BinaryRunner.run(["logs", file.path + ".gz", "--summary"])
        #expect(result.status == 0, "\(result.stderr)")
        try Self.check(try Self.summary(result.stdout))

        let failing = try await BinaryRunner.run([
            "logs", file.path + ".gz", "--summary", "--fail-on", "NOT_FOUND", "--fail-on", "silence",
        ])
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("found silence"))
    }

    @Test func stdinIsRead() async throws {
        let result = try await BinaryRunner.run(["logs", "-", "--summary"], stdin: Self.exportLines)
        #expect(result.status == 0, "\(result.stderr)")
        try Self.check(try Self.summary(result.stdout))
        let failing = try await BinaryRunner.run(
            ["logs", "-", "--summary", "--fail-on", "PERMISSION_DENIED"], stdin: Self.exportLines)
        #expect(failing.status == 1)
    }

    @Test func textIsNotAnExport() async throws {
        let result = try await BinaryRunner.run(["logs", "-", "--summary"], stdin: "hello\nworld\n")
        #expect(result.status == 2)
        #expect(result.stderr.contains("-:1: not_json: text that is not JSON"))
    }

    @Test func withoutATerminalTheScreenNamesSummaryAndWatch() async throws {
        let result = try await BinaryRunner.run(["logs", "-"], stdin: "[]")
        #expect(result.status == 64)
        #expect(result.stderr.contains("the logs screen needs a terminal"))
        #expect(result.stderr.contains("--summary or --watch"))
    }

    /// The logs screen in tmux at 80x24 and 160x48 (scripts/e2e-logs-tmux.sh): the silent vehicle
    /// first, Enter follows it, v shows the version table, q leaves the shell as it was.
    @Test(.enabled(if: DashboardEndToEndTests.tmuxInstalled, "needs tmux"))
    func theScreenInTmux() async throws {
        let (status, text) = try await BinaryRunner.runScript(named: "e2e-logs-tmux.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains("e2e-logs: ok"))
    }

    /// `--watch` as an operator pipes it: every call a line jq reads, the silence after them, the
    /// summary last.
    @Test(.enabled(if: tool("jq") != nil, "needs jq"))
    func watchPrintsEachCallThenTheSilenceThenTheSummaryForJq() async throws {
        let lines = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-watched-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: lines) }
        let result = try await BinaryRunner.run(["logs", "-", "--watch", "--summary"], stdin: Self.exportLines)
        #expect(result.status == 0, "\(result.stderr)")
        try Data(result.stdout.utf8).write(to: lines)
        let jq = URL(fileURLWithPath: try #require(Self.tool("jq")))
        let counted = try await BinaryRunner.run(
            [
                "-s", "-c",
                #"[(map(select(.event == "fleet_engine_call")) | group_by(.id) | map({(.[0].id): length}) | add), "#
                    + #"(map(select(.event == "silence")) | map([.id, .seconds])), .[-1].event, "#
                    + #"(map(select(.status == "PERMISSION_DENIED")) | map(.kind))]"#,
                lines.path,
            ], executable: jq)
        #expect(counted.status == 0, "\(counted.stderr)")
        #expect(
            counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                == #"[{"trip-1":12,"vehicle-1":50},[["vehicle-1",300]],"logs_summary",["vehicle"]]"#)
    }

    /// A tap recording of the same hours, as `tokendash tap --record` writes one: vehicle-1
    /// fetched expired tokens through its five minutes of silence, and vehicle-7, which the logs
    /// never name, tokens for another vehicle.
    static func tapRecording(at path: String) throws {
        let start = Date(timeIntervalSince1970: 1_714_557_600)
        let writer = try RecordingWriter(path: path)
        let state = DashboardState(
            consumerID: "trip-1", driverID: "vehicle-1", now: start, backend: "tap", faultsAvailable: false)
        writer.start(
            RecordingHeader(
                state: state, members: [:], command: ["tokendash", "tap"], source: "tap", tokendash: "test",
                ticks: false, start: start))
        for t in [180.0, 240, 300, 360] {
            writer.record(
                ProviderEvent(
                    time: start.addingTimeInterval(t), provider: .driver, id: "vehicle-1",
                    kind: .fetchFailed(.alreadyExpired(expiredSecondsAgo: Int(t) / 10), latency: 0.02)))
        }
        writer.record(
            ProviderEvent(
                time: start.addingTimeInterval(200), provider: .driver, id: "vehicle-7",
                kind: .fetchFailed(
                    .wrongID(claim: "vehicleid", expected: "vehicle-7", found: "vehicle-1"), latency: 0.02)))
        if let failure = writer.close() { throw RecordingError.cannotWrite(path, failure) }
    }

    @Test func aTapRecordingSaysWhichSilencesWereRefusedTokens() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-tap-\(UUID().uuidString).jsonl"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.tapRecording(at: path)
        let result = try await BinaryRunner.run(["logs", "-", "--summary", "--tap", path], stdin: Self.exportLines)
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try Self.summary(result.stdout)
        let ids = try #require(summary["ids"] as? [[String: Any]])
        let vehicle = try #require(ids.first { $0["id"] as? String == "vehicle-1" })
        #expect(vehicle["tap_explained"] as? Int == 1)
        let tap = try #require(vehicle["tap"] as? [String: Any])
        #expect(tap["verdict"] as? String == "refused_while_silent")
        #expect(tap["flaws"] as? [String: Int] == ["expired on arrival": 4])
        let stranger = try #require(ids.first { $0["id"] as? String == "vehicle-7" })
        #expect(stranger["calls"] as? Int == 0)
        #expect(
            (stranger["tap"] as? [String: Any])?["finding"] as? String
                == "vehicle vehicle-7 made no call Fleet Engine logged in the export's 540 s and fetched 1 token "
                + "through the tap, 1 of them flawed (for another vehicleid): it was running, and Fleet Engine refused "
                + "its calls, which it does not log.")
        let totals = try #require(summary["tap"] as? [String: Int])
        #expect(totals["fetches"] == 5)
        #expect(totals["refused_while_silent"] == 2)
        #expect(totals["only_in_tap"] == 1)
        #expect((summary["versions"] as? [[String: Any]])?.first?["tap_explained"] as? Int == 1)

        // The same fetches split over two taps' recordings read alike.
        let halves = try Self.splitRecording(path)
        defer { for half in halves { try? FileManager.default.removeItem(atPath: half) } }
        let twoTaps = try await BinaryRunner.run(
            ["logs", "-", "--summary", "--tap", halves[0], "--tap", halves[1]], stdin: Self.exportLines)
        #expect(twoTaps.stdout == result.stdout, "\(twoTaps.stderr)")

        let watched = try await BinaryRunner.run(["logs", "-", "--watch", "--tap", path], stdin: Self.exportLines)
        #expect(watched.stdout.split(separator: "\n").filter { $0.contains(#""event":"tap_finding""#) }.count == 2)
    }

    /// `path`'s recording as two: its header in each, its lines alternately in one or the other.
    static func splitRecording(_ path: String) throws -> [String] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let halves = [path + ".a", path + ".b"]
        for (index, half) in halves.enumerated() {
            let body = lines.dropFirst().enumerated().filter { $0.offset % 2 == index }.map(\.element)
            try ([lines[0]] + body).joined(separator: "\n").appending("\n").write(
                toFile: half, atomically: true, encoding: .utf8)
        }
        return halves
    }

    @Test func aTapFileThatIsNoRecordingIsOneLineAndExit2() async throws {
        let result = try await BinaryRunner.run(
            ["logs", "-", "--summary", "--tap", "/nonexistent/tap.jsonl"], stdin: Self.exportLines)
        #expect(result.status == 2)
        #expect(result.stderr == "tokendash logs: --tap /nonexistent/tap.jsonl: no such file\n")
    }

    /// `logs --record` as a support engineer keeps an export's reading for a customer: the
    /// recording replays as `logs --watch` printed it, reads as the same export, becomes a report
    /// page and an asciicast of the screen playing, and holds no token a backend's message carried.
    @Test func aRecordedReadingReplaysReportsAndCasts() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-logs-rec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl"
        let export = Self.exportLines.replacingOccurrences(
            of: #""message":"denied""#, with: #""message":"denied \#(token)""#)
        let record = folder.appendingPathComponent("reading.jsonl").path
        let read = try await BinaryRunner.run(["logs", "-", "--summary", "--record", record], stdin: export)
        #expect(read.status == 0, "\(read.stderr)")
        let recorded = try String(contentsOfFile: record, encoding: .utf8)
        #expect(!recorded.contains(token), "the message's token is redacted in the recording")
        #expect(recorded.split(separator: "\n").count == 52, "a header, 50 entries, the last line")

        let watched = try await BinaryRunner.run(["replay", record, "--to-watch"])
        #expect(watched.status == 0 && watched.stderr.isEmpty, "\(watched.stderr)")
        let lines = watched.stdout.split(separator: "\n")
        #expect(
            lines.count { $0.contains(#""event":"fleet_engine_call""#) } == 62, "50 vehicle calls and 12 trip calls")
        #expect(lines.last?.contains(#""event":"silence""#) == true)

        let again = try await BinaryRunner.run(["logs", record, "--summary"])
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
        try Self.check(try Self.summary(again.stdout))

        let page = folder.appendingPathComponent("page.html").path
        let reported = try await BinaryRunner.run(["report", record, "-o", page])
        #expect(reported.status == 0 && reported.stderr.isEmpty, "\(reported.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("tokendash logs report") && html.contains("PERMISSION_DENIED 1"))
        #expect(html.contains("2024-05-01T10:02:00.000Z for 300 s"), "vehicle-1's silence")
        #expect(!html.contains(token))

        let cast = folder.appendingPathComponent("logs.cast").path
        let casted = try await BinaryRunner.run(["replay", record, "--to-cast", cast, "--speed", "600"])
        #expect(casted.status == 0, "\(casted.stderr)")
        let castLines = try String(contentsOfFile: cast, encoding: .utf8).split(separator: "\n")
        let first = try #require(castLines.first)
        let header = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(header["version"] as? Int == 2 && header["width"] as? Int == 160)
        #expect(castLines.contains { $0.contains(#""m", "vehicle vehicle-1 silent""#) })
        // 540 s at 600x: about a second of cast, ten frames a second.
        #expect((8...14).contains(castLines.count - 1), "\(castLines.count - 1) events")

        let badSpeed = try await BinaryRunner.run(["replay", record, "--speed", "4"])
        #expect(badSpeed.status == 64 && badSpeed.stderr.contains("1, 10, 60, 600 for a logs recording"))
    }

    /// The cast of a logs recording plays in Debian's asciinema: the logs screen, from its start.
    @Test(.enabled(if: tool("asciinema") != nil && tool("script") != nil, "needs asciinema and script"))
    func aLogsCastPlaysInAsciinema() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-logs-cast-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = folder.appendingPathComponent("reading.jsonl").path
        let cast = folder.appendingPathComponent("logs.cast").path
        let read = try await BinaryRunner.run(["logs", "-", "--summary", "--record", record], stdin: Self.exportLines)
        try #require(read.status == 0, "\(read.stderr)")
        let casted = try await BinaryRunner.run(["replay", record, "--to-cast", cast, "--speed", "600"])
        try #require(casted.status == 0, "\(casted.stderr)")
        // asciinema 2.2's cat opens /dev/tty: util-linux's script gives it one (EvidenceEndToEndTests).
        let cat = try await BinaryRunner.run(
            ["-q", "-e", "-c", "\(try #require(Self.tool("asciinema"))) cat '\(cast)'", "/dev/null"],
            executable: URL(fileURLWithPath: try #require(Self.tool("script"))), environment: ["LANG": "C.UTF-8"])
        #expect(cat.status == 0 && !cat.stdout.contains("Traceback"), "\(cat.stdout.suffix(2000))")
        #expect(cat.stdout.contains("tokendash logs") && cat.stdout.contains("vehicle-1"))
        #expect(cat.stdout.contains("entries 1 of 50"), "the cast starts at the export's start: its first call")
    }
}
