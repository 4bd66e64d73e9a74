import Foundation
import ProviderVocabulary
import Testing
import TokenJudging

@testable import TokenServer

/// The emulator's limits (TokenServer's `FleetEngineLimits`) and the client's rules (TokenJudging's
/// `TokenRules`) are each written from Fleet Engine's "JSON Web Tokens" page. Neither reads the
/// other, so a change to one side alone fails here, naming both.
@Suite(.timeLimit(.minutes(15))) struct FleetEngineLimitsTests {
    @Test func theEmulatorAndTheClientReadFleetEnginesPageAlike() {
        #expect(
            FleetEngineLimits.audience == TokenRules.fleetEngineAudience,
            "aud: the emulator's FleetEngineLimits.audience and the client's TokenRules.fleetEngineAudience disagree")
        #expect(
            FleetEngineLimits.maximumLifetime == TokenRules.maximumLifetime,
            "exp - iat: the emulator's FleetEngineLimits.maximumLifetime and the client's TokenRules.maximumLifetime disagree"
        )
        #expect(
            FleetEngineLimits.allowedSkew == TokenRules.refusedSkew,
            "iat ahead: the emulator's FleetEngineLimits.allowedSkew and the client's TokenRules.refusedSkew disagree")
    }

    /// The emulator refuses just past each of its own limits and accepts at them.
    @Test func theEmulatorJudgesByItsOwnLimits() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let seconds = Int64(now.timeIntervalSince1970)
        func problem(aud: String = FleetEngineLimits.audience, iat: Int64, exp: Int64) -> String? {
            FleetEngineEmulator.timeProblem(
                PresentedClaims(aud: .string(aud), iat: .int(iat), exp: .int(exp)), now: now)
        }
        let skew = Int64(FleetEngineLimits.allowedSkew)
        let lifetime = FleetEngineLimits.maximumLifetime
        #expect(problem(iat: seconds, exp: seconds + lifetime) == nil)
        #expect(problem(iat: seconds + skew, exp: seconds + skew + 60) == nil)
        #expect(
            problem(iat: seconds + skew + 1, exp: seconds + skew + 61)?.contains(
                "beyond \(skew) s of allowed clock skew") == true)
        #expect(problem(iat: seconds, exp: seconds + lifetime + 1)?.contains("not within 0 to \(lifetime) s") == true)
        #expect(
            problem(aud: "https://fleetengine.googleapis.com", iat: seconds, exp: seconds + 60)?.hasPrefix("JWT aud is")
                == true)
    }
}
