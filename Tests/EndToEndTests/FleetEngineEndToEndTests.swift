import FlyingFox
import Foundation
import JSONValues
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing
import TokenReading

/// The real binary's Fleet Engine calls: to an independent HTTP server standing in for
/// fleetengine.googleapis.com (every byte of each call checked, its 403 shown with its
/// message), and to the embedded emulator by default.
@Suite(.serialized, .timeLimit(.minutes(15))) struct FleetEngineEndToEndTests {
    /// One call as the stand-in Fleet Engine received it.
    struct Received: Sendable, Equatable {
        var method: String
        var path: String
        var query: String
        var authorization: String?
        var contentType: String?
        var body: String
    }

    /// What the stand-in saw: the tokens it minted by ID, and the Fleet Engine calls.
    final class Seen: Sendable {
        // Guards both; written by the server's handler, read by the test.
        private let state = Mutex<(minted: [String: String], received: [Received])>(([:], []))
        func mint(_ id: String, _ jwt: String) { state.withLock { $0.minted[id] = jwt } }
        func receive(_ call: Received) { state.withLock { $0.received.append(call) } }
        var minted: [String: String] { state.withLock { $0.minted } }
        var received: [Received] { state.withLock { $0.received } }
        func forget() { state.withLock { $0.received = [] } }
    }

    /// A token backend and a Fleet Engine on one loopback server: tokens minted for the ID asked
    /// (an issuer that names no key set, so nothing is fetched from the internet), the trip read
    /// answered, the vehicle update refused in Google's format.
    static func standIn(_ seen: Seen) async throws -> LoopbackServer {
        try await LoopbackServer.start { request in
            if request.path.hasPrefix("/token/") {
                let id = String(request.path.split(separator: "/").last ?? "")
                let kind: ProviderKind = request.path.hasPrefix("/token/driver/") ? .driver : .consumer
                let jwt = TestJWT.make(kind: kind, id: id, lifetime: 3600, account: TestJWT.nonServiceAccount)
                seen.mint(id, jwt)
                let exp = Int(Date().timeIntervalSince1970) + 3600
                return HTTPResponse(statusCode: .ok, body: Data(TestJWT.responseBody(jwt, expiresAtSeconds: exp).utf8))
            }
            let body = try await request.bodyData
            seen.receive(
                Received(
                    method: request.method.rawValue, path: request.path,
                    query: request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&"),
                    authorization: request.headers[FlyingFox.HTTPHeader("Authorization")],
                    contentType: request.headers[FlyingFox.HTTPHeader("Content-Type")],
                    body: String(decoding: body, as: UTF8.self)))
            if request.path.contains("/vehicles/") {
                let error =
                    #"{"error":{"code":403,"message":"The caller does not have permission to update vehicle-0001","status":"PERMISSION_DENIED"}}"#
                return HTTPResponse(
                    statusCode: .forbidden, headers: [.contentType: "application/json"], body: Data(error.utf8))
            }
            return HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/json"], body: Data(#"{"name":"trip"}"#.utf8))
        }
    }

    static func lines(_ stdout: String, event: String) -> [JSONValues.JSONValue] {
        stdout.split(separator: "\n").compactMap { try? JSONValues.JSONValue.decode(Data($0.utf8)) }.filter {
            $0["event"]?.stringValue == event
        }
    }

    /// `watch` running until each of `providers` has printed a `fleet_engine_call` line (or a
    /// minute has passed: a loaded machine's first calls can take seconds), then stopped. The
    /// lines, by provider.
    static func watchCalls(_ arguments: [String], providers: [String]) async throws -> [String: JSONValues.JSONValue] {
        let watch = try BackgroundProcess(BinaryRunner.binary, ["watch"] + arguments, name: "fleet-engine-watch")
        var lines: [String: JSONValues.JSONValue] = [:]
        for provider in providers {
            let pattern = #"(\{"time":[^\n]*"provider":""# + provider + #""[^\n]*"event":"fleet_engine_call"[^\n]*\})"#
            if let line = try await watch.await(pattern) {
                lines[provider] = try? JSONValues.JSONValue.decode(Data(line.utf8))
            }
        }
        await watch.stop()
        return lines
    }

    @Test func eachCallReachesARealFleetEngineExactlyAsTheSDKSendsItAndItsRefusalIsShown() async throws {
        let seen = Seen()
        let server = try await Self.standIn(seen)
        defer { Task { await server.stop() } }
        let answers = try await Self.watchCalls(
            [
                "--consumer-url", server.base + "/token/consumer/{tripId}", "--driver-url",
                server.base + "/token/driver/{vehicleId}",
                "--fleet-engine", server.base, "--provider-id", "my-project", "--fleet-engine-writes",
            ], providers: ["driver", "consumer"])
        let calls = seen.received
        let tokens = seen.minted
        let tripToken = try #require(tokens["trip-0001"])
        let vehicleToken = try #require(tokens["vehicle-0001"])
        // One call each: the interval is 10 s, and the test stops watch once both have answered.
        #expect(calls.count == 2, "\(calls)")
        #expect(
            calls.contains(
                Received(
                    method: "PUT", path: "/v1/providers/my-project/vehicles/vehicle-0001",
                    query: "updateMask=lastLocation",
                    authorization: "Bearer " + vehicleToken, contentType: "application/json",
                    body: #"{"lastLocation":{"location":{"latitude":37.422,"longitude":-122.0841}}}"#)))
        #expect(
            calls.contains(
                Received(
                    method: "GET", path: "/v1/providers/my-project/trips/trip-0001", query: "",
                    authorization: "Bearer " + tripToken, contentType: nil, body: "")))

        let vehicle = try #require(answers["driver"])
        #expect(vehicle["method"]?.stringValue == "UpdateVehicle")
        #expect(vehicle["http_status"]?.intValue == 403)
        #expect(vehicle["status"]?.stringValue == "PERMISSION_DENIED")
        #expect(vehicle["message"]?.stringValue == "The caller does not have permission to update vehicle-0001")
        // The rules passed the token; Fleet Engine refused it.
        #expect(vehicle["verdict_disagrees"] == .bool(true))
        let trip = try #require(answers["consumer"])
        #expect(trip["status"]?.stringValue == "OK" && trip["verdict_disagrees"] == .bool(false))
        #expect(trip["fingerprint"]?.stringValue == TokenFingerprint.of(tripToken))
    }

    @Test func readOnlyByDefaultAndNoCallsWithNoFleetEngine() async throws {
        let seen = Seen()
        let server = try await Self.standIn(seen)
        defer { Task { await server.stop() } }
        let urls = [
            "--consumer-url", server.base + "/token/consumer/{tripId}", "--driver-url",
            server.base + "/token/driver/{vehicleId}",
        ]
        let answers = try await Self.watchCalls(
            ["--fleet-engine", server.base, "--provider-id", "my-project"] + urls, providers: ["driver", "consumer"])
        #expect(answers["driver"]?["method"]?.stringValue == "GetVehicle")
        let reads = seen.received
        #expect(reads.map(\.method).sorted() == ["GET", "GET"])
        #expect(reads.contains { $0.path == "/v1/providers/my-project/vehicles/vehicle-0001" && $0.body.isEmpty })
        seen.forget()
        let off = try await BinaryRunner.run(["watch", "--duration", "1", "--no-fleet-engine"] + urls)
        #expect(off.status == 0)
        #expect(seen.received.isEmpty)
        // A user's own backend without --fleet-engine: nothing to call either.
        _ = try await BinaryRunner.run(["watch", "--duration", "1"] + urls)
        #expect(seen.received.isEmpty)
    }

    @Test func theDefaultWatchReportsTheEmbeddedFleetEnginesAnswers() async throws {
        let answers = try await Self.watchCalls([], providers: ["consumer", "driver"])
        #expect(answers["consumer"]?["method"]?.stringValue == "GetTrip")
        #expect(answers["driver"]?["method"]?.stringValue == "UpdateVehicle")
        #expect(
            answers.count == 2
                && answers.values.allSatisfy { $0["status"]?.stringValue == "OK" && $0["http_status"]?.intValue == 200 }
        )
    }

    @Test func decodeAsksFleetEngineAndItsAnswerIsTheLastWord() async throws {
        let seen = Seen()
        let server = try await Self.standIn(seen)
        defer { Task { await server.stop() } }
        let trip = TestJWT.make(kind: .consumer, id: "trip-7", lifetime: 600)
        let accepted = try await BinaryRunner.run(["decode", trip, "--ask-fleet-engine", "--fleet-engine", server.base])
        #expect(accepted.status == 0, "\(accepted.stdout)\(accepted.stderr)")
        #expect(
            accepted.stdout.hasSuffix(
                "Fleet Engine: GetTrip providers/my-project/trips/trip-7: HTTP 200 OK\nFleet Engine accepted the token\n"
            ))
        // The one read call, with the token, in the issuer's project.
        #expect(
            seen.received == [
                Received(
                    method: "GET", path: "/v1/providers/my-project/trips/trip-7", query: "",
                    authorization: "Bearer " + trip, contentType: nil, body: "")
            ])

        let vehicle = TestJWT.make(kind: .driver, id: "vehicle-0001", lifetime: 600)
        let refused = try await BinaryRunner.run([
            "decode", vehicle, "--ask-fleet-engine", "--fleet-engine", server.base,
        ])
        #expect(refused.status == 1)
        #expect(
            refused.stdout.contains(
                "Fleet Engine: GetVehicle providers/my-project/vehicles/vehicle-0001: HTTP 403 PERMISSION_DENIED: The caller does not have permission to update vehicle-0001\n"
            ))
        #expect(
            refused.stderr
                == "tokendash decode: Fleet Engine refused this token: PERMISSION_DENIED: The caller does not have permission to update vehicle-0001\n"
        )
    }

    @Test func fleetEngineFlagsAreCheckedBeforeAnythingStarts() async throws {
        let missing = try await BinaryRunner.run(["watch", "--fleet-engine", "https://fleetengine.googleapis.com"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("--fleet-engine needs --provider-id PROJECT"))
        let both = try await BinaryRunner.run([
            "watch", "--fleet-engine", "https://x.test", "--provider-id", "p", "--no-fleet-engine",
        ])
        #expect(both.stderr.contains("give --fleet-engine or --no-fleet-engine, not both"))
        let fast = try await BinaryRunner.run(["watch", "--fleet-engine-interval", "0.1"])
        #expect(fast.stderr.contains("--fleet-engine-interval must be 1 second to 30 days"))
        let writes = try await BinaryRunner.run(["watch", "--fleet-engine-writes"])
        #expect(writes.stderr.contains("--fleet-engine-writes needs --fleet-engine URL"))
        let log = try await BinaryRunner.run([
            "watch", "--fleet-engine", "https://x.test", "--provider-id", "p", "--fleet-engine-log", "/tmp/fe.jsonl",
        ])
        #expect(log.status == 64)
        #expect(
            log.stderr.contains("--fleet-engine-log writes the embedded emulator's calls: it needs the embedded server")
        )
    }
}
