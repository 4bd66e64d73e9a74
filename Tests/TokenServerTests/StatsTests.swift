import Foundation
import ProviderVocabulary
import Testing
import TokenReading

@testable import TokenServer

@Suite(.timeLimit(.minutes(15))) struct StatsTests {
    @Test func countsRequestsMintsAndErrorsPerKind() async throws {
        try await withServer { s in
            for id in ["a", "b", "c"] { #expect(try await s.request("/token/consumer/\(id)").status == 200) }
            #expect(try await s.request("/token/driver/v").status == 200)
            #expect(try await s.request("/token/driver/*").status == 400, "the wildcard is not minted")
            await s.server.setFault(.http500, for: .driver)
            #expect(try await s.request("/token/driver/v").status == 500)
            await s.server.setFault(.wrongID, for: .driver)
            let (wrongStatus, wrong) = try await s.json("/token/driver/v")
            #expect(wrongStatus == 200, "a wrong-ID token is a good HTTP answer")
            let wrongToken = try #require(wrong["jwt"]?.stringValue)
            #expect(try JWTInspector.decode(wrongToken).claims["authorization"]?["vehicleid"] == .string("not-v"))

            let stats = await s.server.stats()
            #expect(stats.consumer == counts(requests: 3, minted: 3, errors: 0, faulted: 0))
            // The wrong-ID token is minted, but it is not a good answer.
            #expect(stats.driver == counts(requests: 4, minted: 2, errors: 3, faulted: 2))
            let p50 = try #require(stats.mintLatencyP50Milliseconds)
            let p99 = try #require(stats.mintLatencyP99Milliseconds)
            #expect(p50 > 0 && p50 <= p99)

            let (status, json) = try await s.json("/stats")
            #expect(status == 200)
            #expect(json["consumer"]?["minted"] == .int(3))
            #expect(json["driver"]?["errors"] == .int(3))
        }
    }

    @Test func noMintsMeansNoLatency() async throws {
        try await withServer { s in
            let stats = await s.server.stats()
            #expect(stats.mintLatencyP50Milliseconds == nil)
            #expect(stats.totalMinted == 0)
        }
    }

    func counts(requests: Int, minted: Int, errors: Int, faulted: Int) -> ServerStats.KindStats {
        var k = ServerStats.KindStats()
        k.requests = requests
        k.minted = minted
        k.errors = errors
        k.faulted = faulted
        return k
    }
}
