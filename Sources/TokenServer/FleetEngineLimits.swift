import Foundation

/// What Fleet Engine accepts in a token, as its "JSON Web Tokens" page states it:
/// developers.google.com/maps/documentation/mobility/fleet-engine/essentials/set-up-fleet/jwt
/// ("JWT claims fields"). Written out here rather than read from TokenJudging's `TokenRules`: the
/// emulator stands for Fleet Engine, and had it judged by the client's own constants, a wrong one
/// would be agreed on by both sides and no refusal would show it. `FleetEngineLimitsTests` holds
/// the two to the same page.
public enum FleetEngineLimits {
    /// `aud`: "Your service account's SERVICE_NAME, in this case https://fleetengine.googleapis.com/".
    public static let audience = "https://fleetengine.googleapis.com/"
    /// `exp`: "The request fails if the timestamp is more than one hour in the future." Counted from
    /// the token's own `iat`, so a token minted with a wrong clock is judged by its lifetime.
    public static let maximumLifetime: Int64 = 60 * 60
    /// `iat`: "Allow 10 minutes for skew. If the timestamp is too far in the past, or in the future,
    /// the server might report an error." An `iat` further than this in the emulator's future is refused.
    public static let allowedSkew: TimeInterval = 10 * 60
}
