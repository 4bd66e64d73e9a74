import ArgumentParser
import FleetAuth
import Foundation

/// Shows what is inside a token and whether Fleet Engine would accept its shape.
/// The signature is not checked: that needs the backend's key.
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a JWT and check it against Fleet Engine's token shape.",
        discussion: """
            Reads the token from the argument, or from stdin when it is missing or "-". A backend's JSON
            answer ({"jwt": ...}) is accepted too. Exits 1 when the input is not a JWT or a check fails.
            """)

    @Argument(help: "The JWT, or - for stdin.")
    var token: String?

    @Option(name: .customLong("trip-id"), help: "Require authorization.tripid to be this trip ID.")
    var tripID: String?

    @Option(name: .customLong("vehicle-id"), help: "Require authorization.vehicleid to be this vehicle ID.")
    var vehicleID: String?

    func validate() throws {
        if tripID != nil && vehicleID != nil { throw ValidationError("give --trip-id or --vehicle-id, not both") }
    }

    func run() async throws {
        let input = token == nil || token == "-" ? Self.readStandardInput() : token ?? ""
        let text = Self.extractToken(input.trimmingCharacters(in: .whitespacesAndNewlines))
        let jwt: DecodedJWT
        do { jwt = try JWTInspector.decode(text) } catch {
            throw Self.failure(text.isEmpty ? "no token given (pass it as an argument or on stdin)" : error.description)
        }
        print("header:")
        print(Self.pretty(jwt.header))
        print("claims:")
        print(Self.pretty(jwt.claims))
        let now = Date()
        if let iat = jwt.issuedAt { print("issued:  \(Self.local(iat))") }
        if let exp = jwt.expiresAt {
            // Claims are the token's word, not ours: exp can be 1e300, which Int() would trap on.
            let seconds = exp.timeIntervalSince(now).rounded(.down)
            let left = TokenResponseDecoder.wholeSeconds(seconds)
            let when = abs(seconds) >= TokenResponseDecoder.implausibleSeconds ? (left > 0 ? "centuries left" : "expired centuries ago")
                : left > 0 ? "\(left) s left" : "expired \(-left) s ago"
            print("expires: \(Self.local(exp)) (\(when))")
        }

        let (kind, id) = expectation(for: jwt)
        let problems = JWTInspector.check(jwt, kind: kind, id: id ?? "")
        let subject = id.map { "\(kind.idNoun) \($0)" } ?? "\(kind) token, any \(kind.idNoun)"
        if problems.isEmpty {
            print("checks:  ok (\(subject))")
        } else {
            print("checks:  \(problems.count) problem\(problems.count == 1 ? "" : "s") (\(subject))")
            for problem in problems { print("  - \(problem)") }
            throw Self.failure("token fails Fleet Engine's checks: " + problems.map(\.description).joined(separator: "; "))
        }
        // A token Fleet Engine would refuse today is a failed check too, even if well shaped.
        if let exp = jwt.expiresAt, exp <= now {
            throw Self.failure("token expired \(TokenResponseDecoder.wholeSeconds(now.timeIntervalSince(exp))) s ago")
        }
    }

    /// The kind and ID to check against. Without an ID flag the kind comes from the claim
    /// present and any ID is accepted, by checking the token against its own ID.
    private func expectation(for jwt: DecodedJWT) -> (ProviderKind, String?) {
        if let tripID { return (.consumer, tripID) }
        if let vehicleID { return (.driver, vehicleID) }
        let authorization = jwt.claims["authorization"]
        for kind in ProviderKind.allCases {
            if let found = authorization?[kind.claimName]?.stringValue { return (kind, found) }
        }
        // Neither claim: check as a consumer token so the missing claim is reported.
        return (.consumer, nil)
    }

    /// A token pasted as a backend's JSON answer is taken from its "jwt" (or "token") key.
    static func extractToken(_ input: String) -> String {
        guard input.hasPrefix("{"), let json = try? JSONValue.decode(Data(input.utf8)) else { return input }
        return json["jwt"]?.stringValue ?? json["token"]?.stringValue ?? input
    }

    static func readStandardInput() -> String {
        String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }

    static func pretty(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return value.description }
        return String(decoding: data, as: UTF8.self)
    }

    static func local(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss zzz"
        let epoch = date.timeIntervalSince1970
        // Past this a claim is no time: shown as the number it is.
        guard abs(epoch) < TokenResponseDecoder.implausibleSeconds else { return "epoch \(epoch)" }
        return "\(formatter.string(from: date)) (epoch \(Int(epoch)))"
    }

    /// Writes the one-line reason to stderr; the returned error only sets the exit status.
    static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("tokendash decode: \(message)\n".utf8))
        return ExitCode.failure
    }
}
