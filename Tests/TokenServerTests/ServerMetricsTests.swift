import Foundation
import ProviderVocabulary
import Testing

@testable import TokenServer

/// The embedded server's `/metrics`: what it minted, how it answered, which faults are on; over
/// real HTTP, the scrape read back line by line.
@Suite(.timeLimit(.minutes(15))) struct ServerMetricsTests {
    /// `series -> value` of the scrape's samples, labels as the registry wrote them.
    func scrape(_ s: RunningServer) async throws -> [String: Double] {
        let (status, headers, body) = try await s.request("/metrics")
        #expect(status == 200)
        #expect(headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        var samples: [String: Double] = [:]
        for line in String(decoding: body, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            samples[String(line[..<space])] = Double(line[line.index(after: space)...])
        }
        return samples
    }

    @Test func countsMintsRequestsByRouteAndFaults() async throws {
        try await withServer { s in
            var statuses: [Int] = []
            for path in [
                "/token/consumer/trip-1", "/token/consumer/trip-2", "/token/driver/vehicle-1", "/token/consumer/",
                "/no/such/path-\(UUID().uuidString)",
            ] {
                statuses.append(try await s.request(path).status)
            }
            await s.server.setFault(.http500, for: .driver)
            statuses.append(try await s.request("/token/driver/vehicle-2").status)
            #expect(statuses == [200, 200, 200, 400, 404, 500])

            let samples = try await scrape(s)
            #expect(samples[#"tokendash_server_tokens_minted_total{kind="consumer"}"#] == 2)
            #expect(samples[#"tokendash_server_tokens_minted_total{kind="driver"}"#] == 1)
            #expect(samples[#"tokendash_server_mint_duration_seconds_count{kind="consumer"}"#] == 2)
            #expect(samples[#"tokendash_server_requests_total{route="/token/consumer",status="200"}"#] == 2)
            #expect(samples[#"tokendash_server_requests_total{route="/token/consumer",status="400"}"#] == 1)
            #expect(samples[#"tokendash_server_requests_total{route="/token/driver",status="500"}"#] == 1)
            #expect(samples[#"tokendash_server_requests_total{route="other",status="404"}"#] == 1)
            #expect(samples[#"tokendash_server_active_faults{kind="driver"}"#] == 1)
            #expect(samples[#"tokendash_server_active_faults{kind="consumer"}"#] == 0)
            // No ID or random path becomes a label.
            #expect(
                !samples.keys.contains { $0.contains("trip-") || $0.contains("vehicle-") || $0.contains("no/such") })
            // /stats stays, counting the same mints.
            let stats = try await s.json("/stats")
            #expect(stats.status == 200)
        }
    }

    @Test func routesAreTemplates() {
        #expect(MeteredRoutes.route("/token/consumer/trip-1") == "/token/consumer")
        #expect(MeteredRoutes.route("/token/bogus/x") == "/token")
        #expect(MeteredRoutes.route("/faults/driver/http500") == "/faults")
        #expect(MeteredRoutes.route("/.well-known/jwks.json") == "/.well-known/jwks.json")
        #expect(MeteredRoutes.route("/wp-admin") == "other")
    }
}
