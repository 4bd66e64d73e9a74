import Foundation
import JSONValues
import ProviderVocabulary
import TestSupport
import Testing

/// docs/fleet-engine.md's "Fleet Engine's own logs" end to end, with nothing made up: `tokendash
/// serve` mints tokens and, as the Fleet Engine emulator, writes the calls it authenticates to an
/// export (`--fleet-engine-log`); a real `tokendash tap --record` stands between it and a `watch`
/// whose driver's tokens come back expired (the server's `expired` fault on the driver). Fleet
/// Engine logs no authentication error, so the vehicle's refused calls leave no line; the trip's
/// calls do. `tokendash logs EXPORT --tap RECORDING` must find the vehicle silent in the whole
/// export and say the tokens it fetched meanwhile were expired.
@Suite(.timeLimit(.minutes(15))) struct LogsTapEndToEndTests {
    static func scratch(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-\(UUID().uuidString)-\(name)").path
    }

    @Test func aRefusedVehicleSilentInTheEmulatorsExportIsExplainedByTheTapsRecording() async throws {
        let export = Self.scratch("fleet-engine.jsonl")
        let recording = Self.scratch("tap.jsonl")
        defer { for path in [export, recording] { try? FileManager.default.removeItem(atPath: path) } }
        let serve = try BackgroundProcess(
            BinaryRunner.binary, ["serve", "--port", "0", "--fleet-engine-log", export], name: "serve")
        let server = try #require(try await serve.await(#"listening on (http://127\.0\.0\.1:\d+)"#), "\(serve.output)")
        let fault = try await sharedTransport.send(
            TransportRequest(
                method: "PUT", url: try #require(URL(string: server + "/faults/driver/expired")),
                timeout: patientTimeout))
        try #require(fault.status == 200)
        let tap = try BackgroundProcess(
            BinaryRunner.binary,
            ["tap", "--listen", "127.0.0.1:0", "--upstream", server, "--record", recording, "--watch"],
            name: "tap")
        let tapped = try #require(try await tap.await(#"listening on (http://127\.0\.0\.1:\d+)"#), "\(tap.output)")
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "watch", "--duration", "600", "--update-interval", "1", "--fleet-engine-interval", "1",
                "--consumer-url", tapped + "/token/consumer/{tripId}", "--driver-url",
                tapped + "/token/driver/{vehicleId}",
                "--fleet-engine", server, "--provider-id", "tokendash", "--timeout", "\(Int(patientTimeout))",
            ], name: "watch")
        // The facts to wait for: the trip's calls answered over five seconds' worth of updates,
        // and the vehicle refused three times (its retries back off 1, 2, 4 s), so that refused
        // fetches fall between the trip's first and last logged calls.
        let tripCalls = try await watch.await(
            6, linesWith: #""provider":"consumer""#, #""event":"fleet_engine_call""#, #""status":"OK""#)
        let refusals = try await watch.await(3, linesWith: #""provider":"driver""#, #""event":"fetch_failed""#)
        await watch.stop()
        await tap.stop()
        await serve.stop()
        try #require(tripCalls && refusals, "\(watch.output.suffix(3_000))")

        let result = try await BinaryRunner.run(["logs", export, "--summary", "--tap", recording])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONValue.decode(Data(result.stdout.utf8)))
        guard case .array(let ids)? = summary["ids"] else { throw ExpectedAnIDList(output: result.stdout) }
        let trip = try #require(ids.first { $0["id"]?.stringValue == "trip-0001" }, "\(result.stdout)")
        #expect((trip["calls"]?.numberValue ?? 0) >= 6)
        #expect(trip["tap"]?["verdict"] == .null, "the trip called all along: nothing to explain")
        let vehicle = try #require(ids.first { $0["id"]?.stringValue == "vehicle-0001" }, "\(result.stdout)")
        #expect(vehicle["calls"]?.numberValue == 0, "no refused call is logged")
        #expect(vehicle["tap"]?["verdict"]?.stringValue == "refused_while_silent", "\(result.stdout)")
        #expect(vehicle["tap_explained"]?.numberValue == 1)
        #expect(vehicle["tap"]?["finding"]?.stringValue?.contains("flawed (expired on arrival)") == true)
        #expect(summary["tap"]?["refused_while_silent"]?.numberValue == 1)
        #expect(summary["tap"]?["only_in_tap"]?.numberValue == 1)
    }

    /// The tap's demo (no --upstream) with `--fleet-engine-log`: its twelve devices' calls are
    /// the export, and every one of them fetched through the tap.
    @Test func theTapsDemoWritesItsDevicesCallsAsAnExport() async throws {
        let export = Self.scratch("demo-fleet-engine.jsonl")
        let recording = Self.scratch("demo-tap.jsonl")
        defer { for path in [export, recording] { try? FileManager.default.removeItem(atPath: path) } }
        let tap = try BackgroundProcess(
            BinaryRunner.binary,
            ["tap", "--listen", "127.0.0.1:0", "--watch", "--fleet-engine-log", export, "--record", recording],
            name: "tap-demo")
        // Two rounds of fetches: each device's first call to Fleet Engine came between them.
        let rounds = try await tap.await(24, linesWith: #""event":"tapped""#)
        await tap.stop()
        try #require(rounds, "\(tap.output.suffix(2_000))")
        let result = try await BinaryRunner.run(["logs", export, "--summary", "--tap", recording])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try JSONValue.decode(Data(result.stdout.utf8))
        guard case .array(let ids)? = summary["ids"] else { throw ExpectedAnIDList(output: result.stdout) }
        let called = ids.filter { ($0["calls"]?.numberValue ?? 0) > 0 }.compactMap { $0["id"]?.stringValue }
        #expect(called.count == 12, "\(result.stdout)")
        #expect(called.allSatisfy { $0.hasPrefix("demo-") })
        #expect(summary["tap"]?["ids"]?.numberValue == 12)

        let upstream = try await BinaryRunner.run([
            "tap", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--fleet-engine-log", export,
            "--watch",
        ])
        #expect(upstream.status == 64)
        #expect(upstream.stderr.contains("--fleet-engine-log writes the demo's Fleet Engine calls"))
    }

    struct ExpectedAnIDList: Error { let output: String }
}
