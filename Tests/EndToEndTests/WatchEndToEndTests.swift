import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `tokendash watch` as a script would use it: the real binary, the embedded server, loopback HTTP.
@Suite(.serialized, .timeLimit(.minutes(15))) struct WatchEndToEndTests {
    func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let dict = object as? [String: Any] else { throw CocoaError(.coderInvalidValue) }
            return dict
        }
    }

    @Test func printsEventsAsJSONLinesAndASummary() async throws {
        let result = try await BinaryRunner.run([
            "watch", "--duration", "2.5", "--update-interval", "0.5", "--callers", "3", "--summary",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try objects(result.stdout)
        let fetched = lines.filter { $0["event"] as? String == "fetched" }
        #expect(Set(fetched.compactMap { $0["provider"] as? String }) == ["consumer", "driver"])
        for event in fetched {
            let token = event["token"] as? String ?? ""
            #expect(token.contains("…") && token.count < 30, "tokens are redacted by default")
            let claims = event["claims"] as? [String: Any]
            #expect(claims?["aud"] as? String == "https://fleetengine.googleapis.com/")
            #expect(
                (event["time"] as? String)?.range(
                    of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)
        }
        let summary = try #require(lines.last)
        #expect(summary["event"] as? String == "summary")
        let consumer = summary["consumer"] as? [String: Any]
        // 3 callers at each of about 5 updates: one request, the rest from the cache.
        #expect(consumer?["requests"] as? Int == 1)
        #expect((consumer?["hits"] as? Int ?? 0) >= 6)
        #expect(result.stderr.contains("embedded token server on http://127.0.0.1:"))
    }

    @Test func revealPrintsWholeTokens() async throws {
        let result = try await BinaryRunner.run(["watch", "--duration", "1", "--reveal"])
        let fetched = try objects(result.stdout).filter { $0["event"] as? String == "fetched" }
        #expect(!fetched.isEmpty)
        for event in fetched { #expect((event["token"] as? String)?.split(separator: ".").count == 3) }
    }

    @Test func aDeadBackendIsReportedPerEvent() async throws {
        let result = try await BinaryRunner.run([
            "watch", "--duration", "1", "--consumer-url", "http://127.0.0.1:1/t/{tripId}",
            "--driver-url", "http://127.0.0.1:1/v/{vehicleId}", "--summary",
        ])
        // No SDK holds a token at the end: a script or health check sees exit 1 and the reason.
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "tokendash watch: trip ID trip-0001 ended without a valid token: backend unreachable at http://127.0.0.1:1/t/trip-0001: connection refused (and 1 more)"
            ), "\(result.stderr)")
        let failures = try objects(result.stdout).filter {
            $0["event"] as? String == "fetch_failed" && $0["provider"] as? String == "consumer"
        }
        #expect(
            failures.first?["error"] as? String
                == "backend unreachable at http://127.0.0.1:1/t/trip-0001: connection refused")
    }

    /// 400 SDKs over a 4 s ramp, stopped after 2.5 s: some started, each with its token; the
    /// rest never asked, are counted and named on stderr, and fail the run: nothing was judged of them.
    @Test func aRampStartsTheFleetGraduallyAndSaysHowFarItGot() async throws {
        let result = try await BinaryRunner.run([
            "watch", "--trips", "200", "--vehicles", "200", "--ramp", "4", "--duration", "2.5",
            "--events", "fetch_failed", "--summary",
        ])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains(
                "tokendash watch: ramp: 400 SDKs make their first calls over 4.0 s at most (100 a second), slower if the backend's answers slow"
            ), "\(result.stderr)")
        let summary = try #require(try objects(result.stdout).last)
        let consumer = try #require(summary["consumer"] as? [String: Any])
        let driver = try #require(summary["driver"] as? [String: Any])
        let started = (consumer["started"] as? Int ?? 0) + (driver["started"] as? Int ?? 0)
        #expect(consumer["sdks"] as? Int == 200 && driver["sdks"] as? Int == 200)
        // Gradual: some, not all. How many depends on how fast this machine's backend answers,
        // which the ramp listens to; the schedule itself is FleetRampTests', on a stepped clock.
        #expect((1..<400).contains(started), "2.5 s of a 4 s ramp of 400: \(started)")
        // One first call per SDK started, none for the rest (those still in the window at the end may be cut off).
        let requests = consumer["requests"] as? Int ?? -1
        let consumersStarted = consumer["started"] as? Int ?? 0
        #expect(
            requests <= consumersStarted && requests >= consumersStarted - 20,
            "\(requests) requests, \(consumersStarted) started")
        #expect((consumer["never_started"] as? Int ?? 0) + (driver["never_started"] as? Int ?? 0) == 400 - started)
        // The first SDK not started is the next trip in ramp order; the line says why.
        let trips = consumer["started"] as? Int ?? 0
        #expect(
            result.stderr.contains(
                "tokendash watch: ramp: \(400 - started) of 400 SDKs never made their first call (trip-\(String(format: "%04d", trips + 1)), "
            ), "\(result.stderr)")
        #expect(result.stderr.contains("), so they are not judged: "), "\(result.stderr)")
    }

    /// More callers than the ramp's window of 16 calls: single-flight makes them one request per
    /// provider, and every SDK fetches (once, none did and the run exited 0).
    @Test(arguments: [17, 10_000])
    func manyCallersStillFetchOnceEach(_ callers: Int) async throws {
        let result = try await BinaryRunner.run([
            "watch", "--duration", "2", "--callers", "\(callers)", "--events", "fetched", "--summary",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try objects(result.stdout)
        let fetched = lines.filter { $0["event"] as? String == "fetched" }
        #expect(Set(fetched.compactMap { $0["provider"] as? String }) == ["consumer", "driver"], "\(result.stderr)")
        let summary = try #require(lines.last)
        for side in ["consumer", "driver"] {
            let counts = summary[side] as? [String: Any]
            #expect(counts?["requests"] as? Int == 1, "\(side): one request for \(callers) callers")
        }
    }

    /// A backend that accepts connections and never answers: the calls out at the run's end get
    /// their timeout, and the health check fails, naming the SDKs and what they met.
    @Test func aBackendThatNeverAnswersFailsTheRun() async throws {
        let silent = try SilentListener()
        defer { silent.stop() }
        let result = try await BinaryRunner.run([
            "watch", "--duration", "1", "--timeout", "2", "--consumer-url", "\(silent.base)/t/{tripId}",
            "--driver-url", "\(silent.base)/v/{vehicleId}", "--summary",
        ])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains(
                "tokendash watch: trip ID trip-0001 ended without a valid token: backend did not answer within 2 s (and 1 more)"
            ), "\(result.stderr)")
    }

    @Test func aBadFlagIsOneClearLine() async throws {
        let result = try await BinaryRunner.run(["watch", "--consumer-url", "http://x/{tripId}"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("give both --consumer-url and --driver-url"))
    }
}

/// A TCP listener on 127.0.0.1 that never accepts: the kernel completes the handshake from its
/// backlog, the request is sent, and no answer ever comes.
struct SilentListener {
    let socket: LoopbackSocket
    var base: String { "http://127.0.0.1:\(socket.port)" }

    init() throws { socket = try LoopbackSocket(listening: 16) }

    func stop() { socket.close() }
}
