import Foundation
import JSONValues

/// What a backend's answer said about its token's expiry, as a customer's code would read it:
/// the field, its number, and whether that number reads as epoch milliseconds, epoch seconds or a
/// duration. Both of Google's iOS samples misread Google's own sample backend here (the Swift one
/// compares epoch milliseconds with seconds, the Objective-C one adds them to now as a duration),
/// so a token they keep past `exp` is explained by this value, in these words.
public struct BackendExpiry: Sendable, Equatable {
    /// The answer's field (`expirationTimestamp`, `expires_in` …).
    public var key: String
    public var value: Double

    public init(key: String, value: Double) {
        self.key = key
        self.value = value
    }

    /// How the number reads, by magnitude (as `--expiry auto` reads it): above 1e11 epoch
    /// milliseconds, above 1e9 epoch seconds, anything less a duration in seconds.
    public enum Reading: Sendable, Equatable {
        case epochMilliseconds
        case epochSeconds
        case duration
    }

    public var reading: Reading {
        if value > 1e11 { return .epochMilliseconds }
        if value > 1e9 { return .epochSeconds }
        return .duration
    }

    /// The expiry in the answer of a token backend (`body`, JSON), by the shapes tokendash
    /// recognises without flags; nil for any other body.
    public static func read(answer body: Data) -> BackendExpiry? {
        guard body.count <= 1 << 16, let json = try? JSONValue.decode(body), case .object(let fields) = json,
            let shape = ResponseShape.detect(fields, tokenKey: nil, expiryKey: nil), let key = shape.expiryKey,
            let value = ResponseShape.lookup(key, in: fields)?.numberValue, value.isFinite
        else { return nil }
        return BackendExpiry(key: key, value: value)
    }

    /// The sentence for a token kept past its `exp`: what the backend sent, how it reads, and
    /// what it becomes when read the other ways, which is how a class ends up keeping a token.
    public func explanation(now: Date) -> String {
        let number = value == value.rounded() && abs(value) < 1e18 ? String(Int64(value)) : String(value)
        let said = "the backend sent \(key): \(number)"
        switch reading {
        case .epochMilliseconds:
            let away = Self.years(value - now.timeIntervalSince1970)
            return
                "\(said), epoch milliseconds (\(Self.time(Date(timeIntervalSince1970: value / 1000)))); read as seconds it is \(away) away, so a class reading it so keeps its token for good"
        case .epochSeconds:
            return
                "\(said), epoch seconds (\(Self.time(Date(timeIntervalSince1970: value)))); added to now it is \(Self.years(value)) away, so a class adding it keeps its token for good"
        case .duration:
            return "\(said), a duration of \(number) s; the class kept its token past it"
        }
    }

    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// A span of seconds far beyond a token's life, in years.
    static func years(_ seconds: Double) -> String {
        let years = seconds / (365.25 * 86_400)
        if years >= 1000 { return "about \(Int((years / 1000).rounded())),000 years" }
        return "about \(Int(years.rounded())) years"
    }
}
