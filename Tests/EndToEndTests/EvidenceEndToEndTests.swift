import Dashboard
import DashboardRuntime
import Foundation
import Recording
import Testing
import UICore

/// The evidence a customer opens, checked with their tools: a real recorded session (the wrong-ID
/// scenario's fault, a trip switch, a mark with a note) as an asciicast read by asciinema and
/// played into pyte, a terminal emulator, and as a report opened by headless Chromium with the
/// network off. scripts/setup.sh installs all three; a test without its tool says which is missing.
@Suite(.serialized, .timeLimit(.minutes(15))) struct EvidenceEndToEndTests {
    /// Recorded live: `tokendash --record … --scenario wrong-id`, `t`, then `m` with a note.
    static let session = BinaryRunner.packageRoot.appendingPathComponent("Tests/Recordings/wrong-id-session.jsonl").path
    static let note = "customer reports PERMISSION_DENIED"
    /// Three base64url segments: a whole JWT.
    static var wholeJWT: Regex<Substring> { /[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ }

    /// `name` on the PATH (python3 may be pyenv's, where pip put pyte).
    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)").path
    }

    /// `replay --to-cast`, checked to have said nothing and written the file.
    static func cast() async throws -> String {
        let path = temporary("session.cast")
        // The theme named, so NO_COLOR in the test's environment does not change the header's text.
        let made = try await BinaryRunner.run([
            "replay", session, "--to-cast", path, "--idle-time-limit", "2", "--theme", "default",
        ])
        #expect(made.status == 0 && made.stderr.isEmpty, "\(made.stderr)")
        return path
    }

    @Test(.enabled(if: tool("asciinema") != nil, "needs asciinema (Debian's; scripts/setup.sh installs it)"))
    func asciinemaReadsTheCastWithoutComplaint() async throws {
        let path = try await Self.cast()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let header = try String(contentsOfFile: path, encoding: .utf8).prefix { $0 != "\n" }
        #expect(
            header.contains("\"version\":2") && header.contains("\"idle_time_limit\":2")
                && header.contains("\"palette\":\"#000000:"))
        // asciinema 2.2's cat opens /dev/tty: util-linux's script gives it a terminal, and its
        // complaints (a traceback) would come out with the cast's output.
        let asciinema = try #require(Self.tool("asciinema"))
        let script = try #require(Self.tool("script"))
        let cat = try await BinaryRunner.run(
            ["-q", "-e", "-c", "\(asciinema) cat '\(path)'", "/dev/null"], executable: URL(fileURLWithPath: script),
            environment: ["LANG": "C.UTF-8"])
        #expect(cat.status == 0, "asciinema cat: \(cat.stdout.suffix(2000))")
        #expect(!cat.stdout.contains("Traceback") && !cat.stdout.contains("Error"), "\(cat.stdout.suffix(2000))")
        #expect(cat.stdout.contains("Vehicle ID") && cat.stdout.contains("\u{1B}["))
    }

    @Test(.enabled(if: tool("python3") != nil, "needs python3 with pyte (scripts/setup.sh installs pyte from PyPI)"))
    func atEachMarkerATerminalShowsTheReplaysOwnFrame() async throws {
        let python = URL(fileURLWithPath: try #require(Self.tool("python3")))
        let check = try await BinaryRunner.run(["-c", "import pyte"], executable: python)
        try #require(check.status == 0, "pyte is missing: scripts/setup.sh installs it (python3 -m pip install pyte)")
        let path = try await Self.cast()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = BinaryRunner.packageRoot.appendingPathComponent("scripts/cast-screens.py").path
        let played = try await BinaryRunner.run([script, path], executable: python)
        #expect(played.status == 0, "\(played.stderr)")
        let screens = try #require(try JSONSerialization.jsonObject(with: Data(played.stdout.utf8)) as? [[String: Any]])
        let labels = screens.compactMap { $0["label"] as? String }
        #expect(labels.contains("mark 1: \(Self.note)"), "\(labels)")
        #expect(labels.contains { $0.hasPrefix("trip ID trip-0001 → ") }, "\(labels)")
        #expect(
            labels.contains("fault on: driver token for the wrong ID")
                && labels.contains { $0.hasPrefix("fault off: driver") }, "\(labels)")
        #expect(labels.contains { $0.hasPrefix("refused: driver") }, "\(labels)")
        #expect(labels.contains { $0.hasPrefix("Fleet Engine: ") && $0.contains("PERMISSION_DENIED") }, "\(labels)")
        #expect(labels.contains { $0.hasPrefix("scenario wrong-id step 1/") }, "\(labels)")
        // The replay's own frame at each marker's moment, folded from the same file in this process.
        let recording = try Recording.read(Self.session)
        let firstLine = try String(contentsOfFile: path, encoding: .utf8).prefix { $0 != "\n" }
        let header = try #require(try JSONSerialization.jsonObject(with: Data(firstLine.utf8)) as? [String: Any])
        let width = try #require(header["width"] as? Int)
        let height = try #require(header["height"] as? Int)
        let timeline = ReplayTimeline(recording, initial: recording.header.initialState())
        for screen in screens {
            let time = try #require(screen["time"] as? Double)
            let state = timeline.fold(to: recording.start.addingTimeInterval(time + 1e-6)).state
            let expected = Renderer.render(state, width: width, height: height).lines
            #expect(screen["lines"] as? [String] == expected, "at \(screen["label"] ?? "")")
        }
    }

    @Test(.enabled(if: tool("chromium") != nil, "needs chromium (Debian's; scripts/setup.sh installs it)"))
    func chromiumOpensTheReportOfflineAndItsDOMHoldsTheFactsAndNoToken() async throws {
        let page = Self.temporary("report.html")
        let netLog = Self.temporary("net.json")
        defer { for file in [page, netLog] { try? FileManager.default.removeItem(atPath: file) } }
        let made = try await BinaryRunner.run(["report", Self.session, "-o", page])
        #expect(made.status == 0 && made.stderr.isEmpty, "\(made.stderr)")
        var arguments = [
            try #require(Self.tool("chromium")), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--log-net-log=\(netLog)",
            "--dump-dom", "file://\(page)",
        ]
        // Root may take the network away altogether; anyone else relies on the net log below.
        if getuid() == 0, let unshare = Self.tool("unshare") { arguments = [unshare, "-n"] + arguments }
        let dom = try await BinaryRunner.run(
            Array(arguments.dropFirst()), executable: URL(fileURLWithPath: arguments[0]),
            environment: ["HOME": FileManager.default.temporaryDirectory.path])
        #expect(dom.status == 0, "\(dom.stderr)")
        let text = dom.stdout
        #expect(text.contains("Note: \(Self.note)"))
        #expect(text.contains("<td>PERMISSION_DENIED</td>"))
        #expect(
            text.contains("<svg class=\"timeline\"") && text.contains("Fetch log")
                && text.contains("<pre class=\"frame"))
        #expect(text.components(separatedBy: "<table").count - 1 >= 4, "the counts, answers, rules and log tables")
        #expect(text.firstMatch(of: Self.wholeJWT) == nil, "a whole JWT reached the page")
        // The page's own requests carry its origin as initiator ("null" for a file); the browser's
        // background ones (component updates, a spelling dictionary) "not an origin".
        let log = try String(contentsOfFile: netLog, encoding: .utf8)
        let initiators = Set(log.matches(of: /"initiator":"([^"]*)"/).map { String($0.output.1) })
        #expect(initiators.isSubset(of: ["not an origin"]), "the page asked the network for something: \(initiators)")
    }

    @Test func anUnwritableOutputIsOneLineAndExit2AndACutRecordingIsNamedAtItsLine() async throws {
        for command in [
            ["replay", Self.session, "--to-cast", "/nonexistent/dir/s.cast"],
            ["report", Self.session, "-o", "/nonexistent/dir/r.html"],
        ] {
            let run = try await BinaryRunner.run(command)
            #expect(
                run.status == 2 && run.stderr == "tokendash: cannot write \(command[3]): No such file or directory\n",
                "\(run.stderr)")
        }
        let cut = Self.temporary("cut.jsonl")
        let cast = Self.temporary("cut.cast")
        defer { for file in [cut, cast] { try? FileManager.default.removeItem(atPath: file) } }
        let text = try String(contentsOfFile: Self.session, encoding: .utf8)
        let lines = text.split(separator: "\n")
        try (lines.prefix(40).joined(separator: "\n") + "\n" + lines[40].prefix(30)).write(
            toFile: cut, atomically: true, encoding: .utf8)
        let run = try await BinaryRunner.run(["replay", cut, "--to-cast", cast])
        #expect(
            run.status == 0
                && run.stderr.hasPrefix("tokendash: \(cut):41: truncated or garbled last line; showing the"),
            "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: cast))
        let usage = try await BinaryRunner.run(["replay", Self.session, "--idle-time-limit", "2"])
        #expect(
            usage.status == 64
                && usage.stderr.contains("--idle-time-limit is the cast's idle_time_limit: give --to-cast too"),
            "\(usage.stderr)")
    }
}
