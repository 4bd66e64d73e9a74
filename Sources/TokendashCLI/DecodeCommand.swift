import ArgumentParser
import FleetEngineAPI
import FleetEngineClient
import Foundation
import HTTPTransport
import HeadlessCommands
import JSONValues
import ProviderEvents
import ProviderVocabulary
import ProxyKit
import Redaction
import TokenJudging
import TokenReading
import TokenSignatures

/// Shows what is inside a token and judges it by the rules Fleet Engine applies, the same rules
/// the providers use, signature included when a key set is known.
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a JWT and judge it by Fleet Engine's rules, signature included.",
        discussion: """
            Reads the token from the argument, or from stdin when it is missing or "-". A backend's JSON
            answer ({"jwt": ...}) is accepted too. Prints every rule as a line (✓ ok, ! warning,
            ✗ failure, · not checked) and exits 1 when the input is not a JWT or any rule fails,
            expiry included. The signature is checked against --jwks, or, for a service-account
            issuer, against the keys Google publishes for it. With --ask-fleet-engine, Fleet
            Engine's own answer to the token follows, and sets the exit status.
            """)

    @Argument(help: "The JWT, or - for stdin.")
    var token: String?

    @Option(name: .customLong("trip-id"), help: "Require authorization.tripid to be this trip ID.")
    var tripID: String?

    @Option(name: .customLong("vehicle-id"), help: "Require authorization.vehicleid to be this vehicle ID.")
    var vehicleID: String?

    @Option(
        name: .customLong("tracking-id"),
        help:
            "Require a last-mile consumer token for this tracking ID (authorization.trackingid, or taskid/taskids naming it)."
    )
    var trackingID: String?

    @Option(
        name: .customLong("delivery-vehicle-id"),
        help: "Require authorization.deliveryvehicleid to be this delivery vehicle ID.")
    var deliveryVehicleID: String?

    @Option(name: .customLong("jwks"), help: "Verify the signature against this JWKS (file or http(s) URL).")
    var jwks: String?

    @Option(name: .customLong("provider-id"), help: "The Google Cloud project the issuer must belong to.")
    var providerID: String?

    @Option(name: .customLong("cacert"), help: "Trust this PEM CA file when fetching an https --jwks URL.")
    var caCertificates: String?

    @Flag(name: .customLong("insecure"), help: "Fetch an https --jwks URL without verifying its certificate.")
    var insecure = false

    @Flag(
        name: .customLong("ask-fleet-engine"),
        help:
            "Make the one read call the token permits (GetTrip, GetVehicle, GetDeliveryVehicle, GetTaskTrackingInfo) to Fleet Engine and print its answer under the rules, as the last word: exit 1 if it refuses the token."
    )
    var askFleetEngine = false

    // A flag and a URL option rather than `--ask-fleet-engine [URL]`: swift-argument-parser has
    // no option whose value may be left out.
    @Option(
        name: .customLong("fleet-engine"),
        help:
            "The Fleet Engine --ask-fleet-engine asks, e.g. the embedded emulator of `tokendash serve`. (default: \(Self.googleFleetEngine))"
    )
    var fleetEngineURL: String?

    static let googleFleetEngine = "https://fleetengine.googleapis.com"

    private var trust: HTTPClientTransport.Trust {
        BackendOptions.trust(insecure: insecure, caCertificates: caCertificates)
    }

    func validate() throws {
        let given = [
            ("--trip-id", tripID), ("--vehicle-id", vehicleID), ("--tracking-id", trackingID),
            ("--delivery-vehicle-id", deliveryVehicleID),
        ].filter { $0.1 != nil }.map(\.0)
        if given.count > 1 {
            // One token has one kind: two ID flags would judge it as two kinds at once.
            throw ValidationError(
                "give one of --trip-id, --vehicle-id, --tracking-id, --delivery-vehicle-id, not \(given.joined(separator: " and "))"
            )
        }
        try BackendOptions.validateIDs(
            [
                ("--trip-id", tripID), ("--vehicle-id", vehicleID), ("--tracking-id", trackingID),
                ("--delivery-vehicle-id", deliveryVehicleID),
            ].compactMap { name, id in id.map { (name, $0) } })
        try BackendOptions.validateKeySet(jwks)
        if let url = fleetEngineURL {
            guard askFleetEngine else {
                throw ValidationError("--fleet-engine is the Fleet Engine --ask-fleet-engine asks: give both")
            }
            guard let parsed = URL(string: url), let scheme = parsed.scheme,
                ["http", "https"].contains(scheme.lowercased()), parsed.host != nil
            else {
                throw ValidationError(
                    "--fleet-engine must be an http(s) base URL such as \(Self.googleFleetEngine), got \(SecretRedactor.redact(url))"
                )
            }
        }
    }

    func run() async throws {
        let input = token == nil || token == "-" ? Self.readStandardInput() : token ?? ""
        let text = Self.extractToken(input.trimmingCharacters(in: .whitespacesAndNewlines))
        let jwt: DecodedJWT
        do { jwt = try JWTInspector.decode(text) } catch {
            throw Self.failure(text.isEmpty ? "no token given (pass it as an argument or on stdin)" : error.description)
        }
        let now = Date()
        Self.printToken(jwt, text: text, now: now)
        let (kind, id) = expectation(for: jwt)
        var results = TokenRules.evaluate(jwt, kind: kind, id: id, now: now, providerID: providerID)
        let transport: HTTPClientTransport
        do {
            // A key set on the internet is fetched through the proxy variables, as curl would.
            let proxy = try ProxySettings.fromEnvironment(ProcessInfo.processInfo.environment)
            transport = try HTTPClientTransport(trust: trust, proxy: proxy)
        } catch { throw Self.failure("\(error)") }
        let verifier = JWKSVerifier(keySet: jwks.map(KeySetLocation.init(argument:)), transport: transport)
        results.append(await verifier.verify(text, jwt: jwt))
        let answer = await ask(text, jwt: jwt, kind: kind, id: id, rules: results.worst, transport: transport)
        await transport.shutdown()
        Self.printRules(results, subject: id.map { "\(kind.idNoun) \($0)" } ?? "\(kind.tokenNoun), any \(kind.idNoun)")
        if let answer {
            // Fleet Engine's own answer is the last word on whether it takes the token.
            try Self.report(answer)
            return
        }
        let failures = results.failures
        if !failures.isEmpty {
            throw Self.failure(
                "Fleet Engine would refuse this token: "
                    + failures.map { "\($0.rule): \($0.reason)" }.joined(separator: "; "))
        }
    }

    /// The header, the claims, when it was issued and expires, and its fingerprint.
    private static func printToken(_ jwt: DecodedJWT, text: String, now: Date) {
        print("header:")
        print(pretty(jwt.header))
        print("claims:")
        print(pretty(jwt.claims))
        if let iat = jwt.issuedAt { print("issued:  \(local(iat))") }
        if let exp = jwt.expiresAt {
            // Claims are the token's word, not ours: exp can be 1e300, which Int() would trap on.
            let seconds = exp.timeIntervalSince(now).rounded(.down)
            let left = InputBounds.wholeSeconds(seconds)
            let when =
                abs(seconds) >= TokenResponseDecoder.implausibleSeconds
                ? (left > 0 ? "centuries left" : "expired centuries ago")
                : left > 0 ? "\(left) s left" : "expired \(-left) s ago"
            print("expires: \(local(exp)) (\(when))")
        }

        print("fingerprint: \(TokenFingerprint.of(text))")
    }

    /// The verdict on `subject` in a line, then each rule's result.
    private static func printRules(_ results: [RuleResult], subject: String) {
        let failures = results.failures
        let warnings = results.filter { $0.level == .warn }.count
        let verdict =
            failures.isEmpty
            ? (warnings == 0
                ? "Fleet Engine would accept it"
                : "Fleet Engine would accept it, with \(warnings) warning\(warnings == 1 ? "" : "s")")
            : "Fleet Engine would refuse it: \(failures.count) rule\(failures.count == 1 ? "" : "s") failed"
        print("rules (\(subject)): \(verdict)")
        let width = results.map(\.rule.name.count).max() ?? 0
        for result in results {
            print(
                "  \(result.level.symbol) \(result.rule.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(result.reason)"
            )
        }
    }

    /// With `--ask-fleet-engine`: the read call the token's claim permits, for the ID asked (or
    /// the one the claim names), in the project asked (or the issuer's).
    private func ask(
        _ token: String, jwt: DecodedJWT, kind: ProviderKind, id: String?, rules: RuleLevel,
        transport: HTTPClientTransport
    ) async -> FleetEngineAnswer? {
        guard askFleetEngine, let base = URL(string: fleetEngineURL ?? Self.googleFleetEngine) else { return nil }
        let claimed = kind.acceptedClaimNames.lazy.compactMap { jwt.claims["authorization"]?[$0]?.stringValue }.first
        let project = providerID ?? jwt.claims["iss"]?.stringValue.flatMap(TokenRules.serviceAccountProject)
        guard let resourceID = id ?? claimed.flatMap({ $0 == "*" ? nil : $0 }), let project else {
            let missing =
                project == nil
                ? "--provider-id (the issuer names no project)" : "the \(kind.idNoun) flag (the claim names none)"
            print("Fleet Engine: not asked: give \(missing)")
            return nil
        }
        let target = FleetEngineTarget(base: base, provider: project, writes: false)
        let caller = FleetEngineCaller(
            target: target, kind: kind, count: 1, transport: transport, events: EventBroadcaster(),
            verdict: TokenRules.verdict)
        return await caller.call(id: resourceID, token: token, refusedByProvider: rules == .fail)
    }

    /// Fleet Engine's answer under the rules, and the exit status it sets.
    private static func report(_ answer: FleetEngineAnswer) throws {
        print(
            "Fleet Engine: \(answer.method.rawValue) \(answer.resource): "
                + (answer.httpStatus.map { "HTTP \($0) " } ?? "") + answer.status
                + (answer.message.isEmpty ? "" : ": \(answer.message)"))
        switch answer.tokenVerdict {
        case .accepted:
            print(
                answer.httpStatus == 404
                    ? "Fleet Engine accepted the token (the resource itself is not there)"
                    : "Fleet Engine accepted the token")
            if answer.verdictDisagrees { print("⚠ the rules above failed it: a rules bug or a backend bug") }
        case .refused:
            if answer.verdictDisagrees { print("⚠ the rules above passed it: a rules bug or a backend bug") }
            throw failure(
                "Fleet Engine refused this token: \(answer.status)\(answer.message.isEmpty ? "" : ": " + answer.message)"
            )
        case .unknown:
            throw failure(
                "Fleet Engine did not judge the token: \(answer.status)\(answer.message.isEmpty ? "" : ": " + answer.message)"
            )
        }
    }

    /// The kind and ID to check against. Without an ID flag the kind comes from the claim
    /// present (`tripid`, `vehicleid`, `trackingid`/`taskid`/`taskids`, `deliveryvehicleid`)
    /// and any ID is accepted.
    private func expectation(for jwt: DecodedJWT) -> (ProviderKind, String?) {
        if let tripID { return (.consumer, tripID) }
        if let vehicleID { return (.driver, vehicleID) }
        if let trackingID { return (.deliveryConsumer, trackingID) }
        if let deliveryVehicleID { return (.deliveryDriver, deliveryVehicleID) }
        // Neither claim: judged as a consumer token so the missing claim is reported.
        return (ProviderKind.named(by: jwt.claims["authorization"]) ?? .consumer, nil)
    }

    /// A token pasted as a backend's JSON answer is taken from it as a provider would read it
    /// (`jwt`, `token`, `access_token`: `ResponseShape`).
    static func extractToken(_ input: String) -> String {
        guard input.hasPrefix("{"), let json = try? JSONValue.decode(Data(input.utf8)) else { return input }
        return ResponseShape.token(inAnswer: json) ?? input
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
        say(message, as: "decode")
        return ExitCode.failure
    }
}
