import FleetEngineAPI
import FleetEngineClient
import FlyingFox
import Foundation
import HTTPTransport
import ProviderEvents
import ProviderVocabulary
import TokenJudging
import TokenServer

/// CPU per Fleet Engine call, beside a raw AsyncHTTPClient GET (with the same bearer header) of
/// the same run to the same loopback responder: what an SDK's call adds over the HTTP exchange itself (building the
/// request, the rules' verdict on the token, its fingerprint, reading the answer). Then the same
/// call to the embedded emulator, whose verification is cached per token, beside a GET of the
/// emulator's server (`/healthz`): both sides are in this process, so both figures hold both.
enum FleetEngineCallBenchmark {
    static let calls = 3000

    @Sendable static func run() async throws {
        let answer = Data(#"{"name":"providers/bench/vehicles/vehicle-1"}"#.utf8)
        let responder = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 5, pool: NoDelaySocketPool(), logger: .disabled)
        await responder.appendRoute("*") { _ in
            HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: answer)
        }
        let serving = Task { try await responder.run() }
        try await responder.waitUntilListening()
        guard case .ip4(_, let port)? = await responder.listeningAddress,
            let base = URL(string: "http://127.0.0.1:\(port)")
        else { throw FleetAuthError.other("no port") }

        let server = try await EmbeddedTokenServer(configuration: TokenServerConfiguration(lifetime: 3600))
        let emulator = try await server.start()
        let transport = try HTTPClientTransport()
        let minted = try await transport.send(
            TransportRequest(url: emulator.appendingPathComponent("token/driver/vehicle-1")))
        guard
            let token = TokenResponseDecoder(endpoint: .sampleBackend(.driver, base: emulator.absoluteString))
                .tokenText(minted)
        else {
            throw FleetAuthError.other("no token from the embedded server")
        }

        func caller(_ base: URL, provider: String) -> FleetEngineCaller {
            FleetEngineCaller(
                target: FleetEngineTarget(base: base, provider: provider, writes: true), kind: .driver, count: 1,
                transport: transport, events: EventBroadcaster(), verdict: TokenRules.verdict)
        }
        // The baselines carry the same bearer header: a server's cost of reading 800 bytes of
        // header is the exchange's, not the call's.
        let bearer = [HTTPHeader(name: "Authorization", value: "Bearer " + token)]
        let raw = try await measure {
            try await transport.send(TransportRequest(url: base.appendingPathComponent("v1/x"), headers: bearer)).status
        }
        let call = caller(base, provider: "bench")
        let client = try await measure { await call.call(id: "vehicle-1", token: token).httpStatus ?? 0 }
        let health = try await measure {
            try await transport.send(TransportRequest(url: emulator.appendingPathComponent("healthz"), headers: bearer))
                .status
        }
        let emulated = caller(emulator, provider: server.fleetEngineProject)
        let both = try await measure { await emulated.call(id: "vehicle-1", token: token).httpStatus ?? 0 }

        BenchReport.figure("fleet_engine_call_cpu_us", value: client, unit: "µs", baseline: raw)
        BenchReport.figure("fleet_engine_emulated_call_cpu_us", value: both, unit: "µs", baseline: health)
        MintBenchmark.printTable([
            ("raw AsyncHTTPClient GET (baseline)", String(format: "%6.1f µs CPU a request", raw)),
            (
                "Fleet Engine call (UpdateVehicle)",
                String(format: "%6.1f µs CPU a call, %.2fx the GET", client, client / raw)
            ),
            (
                "embedded server GET /healthz (baseline)",
                String(format: "%6.1f µs CPU a request, server included", health)
            ),
            (
                "call to the embedded emulator",
                String(format: "%6.1f µs CPU a call, %.2fx, emulator included", both, both / health)
            ),
        ])
        await transport.shutdown()
        await server.stop()
        await responder.stop(timeout: 1)
        serving.cancel()
    }

    /// Process CPU per call, in µs, over `calls` sequential calls after a warm-up one (the
    /// connection, and the emulator's one signature check of the token).
    static func measure(_ once: () async throws -> Int) async throws -> Double {
        guard try await once() == 200 else { throw FleetAuthError.other("the warm-up call was not answered 200") }
        let cpu0 = MintBenchmark.cpuSeconds()
        for _ in 0..<calls {
            let status = try await once()
            guard status == 200 else { throw FleetAuthError.httpStatus(code: status, body: "") }
        }
        return (MintBenchmark.cpuSeconds() - cpu0) / Double(calls) * 1e6
    }
}
