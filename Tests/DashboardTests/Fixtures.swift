import Foundation
import ProviderEvents
import ProviderVocabulary
import TestSupport
import TokenReading

@testable import Dashboard
@testable import UICore

/// A dashboard at a fixed instant in UTC, with tokens made the way the embedded server makes them.
enum Fixtures {
    static let t0 = TestTime.t0  // 2027-01-15 08:00:00 UTC
    static let signature = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk"
    /// The embedded server's issuer, which the pane shows.
    static let account = "tokendash-local@tokendash.iam.gserviceaccount.com"

    static func token(
        _ kind: ProviderKind, id: String, issued: Date = t0, lifetime: Int = 60, findings: [RuleResult] = []
    ) -> FetchedToken {
        let iat = Int(issued.timeIntervalSince1970)
        let jwt = TestJWT.make(
            kind: kind, id: id, iat: iat, exp: iat + lifetime, account: account, signature: signature)
        // Force-unwrap is safe: the token was built just above from known-good parts.
        let decoded = try! JWTInspector.decode(jwt)
        return FetchedToken(
            token: jwt, id: id, expiresAt: issued.addingTimeInterval(TimeInterval(lifetime)),
            receivedAt: issued, jwt: decoded, findings: findings)
    }

    static func state(
        trips: Int = 1, vehicles: Int = 1, consumerID: String = "trip-0001", driverID: String = "vehicle-0001"
    ) -> DashboardState {
        var s = DashboardState(
            consumerID: consumerID, driverID: driverID, now: t0,
            backend: "embedded on 127.0.0.1:40123", faultsAvailable: true,
            themeNames: ["default", "high-contrast", "light", "mono"],
            refreshMargin: 300, trips: trips, vehicles: vehicles)
        s.timeZone = TimeZone(identifier: "UTC") ?? .current
        s.updateInterval = 5
        return s
    }

    static func event(_ kind: ProviderKind, _ id: String, _ k: ProviderEvent.Kind, at offset: TimeInterval = 0)
        -> Action
    {
        .event(ProviderEvent(time: t0.addingTimeInterval(offset), provider: kind, id: id, kind: k))
    }

    /// Both providers fetched once and served a few hits.
    static func running() -> DashboardState {
        var s = state()
        for (kind, id) in [(ProviderKind.consumer, "trip-0001"), (.driver, "vehicle-0001")] {
            apply(&s, event(kind, id, .fetchStarted(reason: .noToken)))
            apply(&s, event(kind, id, .fetched(token(kind, id: id), latency: 0.012)))
            for i in 1...3 {
                apply(&s, event(kind, id, .cacheHit(expiresAt: t0.addingTimeInterval(60)), at: Double(i) * 5))
            }
        }
        apply(&s, .tick(t0.addingTimeInterval(15)))
        return s
    }

    @discardableResult
    static func apply(_ state: inout DashboardState, _ action: Action) -> [Effect] {
        Reducer.reduce(&state, action)
    }

    static func text(_ state: DashboardState, _ width: Int = 160, _ height: Int = 48) -> String {
        Renderer.render(state, width: width, height: height).lines.joined(separator: "\n")
    }
}
