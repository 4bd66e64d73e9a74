import Foundation
import JSONValues
import ProviderVocabulary
import Testing
import TokenReading

@testable import TokenServer

/// A demo sets the server's clock off and shortens tokens while it runs.
@Suite(.timeLimit(.minutes(15))) struct MintSettingsTests {
    @Test func aClockOffsetMovesIatExpAndTheDateHeaderTogether() async throws {
        try await withServer(lifetime: 600) { s in
            await s.server.setClockOffset(300)
            // Bracketed by this machine's clock, so a slow request under load does not matter.
            let before = Date().timeIntervalSince1970.rounded(.down)
            let (status, headers, body) = try await s.request("/token/consumer/trip-1")
            let after = Date().timeIntervalSince1970
            #expect(status == 200)
            let json = try JSONValue.decode(body)
            let token = try #require(json["jwt"]?.stringValue)
            let claims = try await s.verify(token)
            // Five minutes ahead of this machine.
            let ahead = (before + 300)...(after + 300)
            #expect(ahead.contains(Double(claims.iat)))
            #expect(claims.exp - claims.iat == 600)
            let date = try #require(headers["date"].flatMap { HTTPDate.parse($0) })
            #expect(ahead.contains(date.timeIntervalSince1970))
            await s.server.setClockOffset(0)
            let start = Date().timeIntervalSince1970.rounded(.down)
            let again = try #require(
                try JSONValue.decode(try await s.request("/token/consumer/trip-1").body)["jwt"]?.stringValue)
            #expect((start...Date().timeIntervalSince1970).contains(Double(try await s.verify(again).iat)))
        }
    }

    @Test func aNewLifetimeAppliesToTokensMintedFromNowOn() async throws {
        try await withServer(lifetime: 3600) { s in
            // Longer than the suite's time limit: the verification checks `exp` on the real clock,
            // and beside four CPU hogs a 90 s token expired between its minting and its check.
            try await s.server.setLifetime(1800)
            #expect(await s.server.lifetime == 1800)
            let token = try #require(
                try JSONValue.decode(try await s.request("/token/driver/v-1").body)["jwt"]?.stringValue)
            let claims = try await s.verify(token)
            #expect(claims.exp - claims.iat == 1800)
            await #expect(throws: TokenServerError.self) { try await s.server.setLifetime(7200) }
            try await s.server.setLifetime(nil)
            #expect(await s.server.lifetime == 3600)
        }
    }
}
