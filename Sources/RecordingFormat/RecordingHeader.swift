import Foundation
import ProviderVocabulary
import Redaction

/// The first line of a recording: what wrote it and how, and what a replay needs to set up the
/// dashboard as it was (IDs, backend, fleet members, settings).
public struct RecordingHeader: Codable, Equatable, Sendable {
    public static let formatName = "tokendash-recording"
    /// Raised when a line changes meaning; a replay reads an older version, and of a newer one
    /// as much as it understands.
    public static let currentVersion = 1

    public var format: String
    public var version: Int
    /// `TokenDash.version` of the program that recorded.
    public var tokendash: String
    /// The command line, secrets redacted (`CommandLineRedactor`).
    public var command: [String]
    /// The start, as the exact `Date` storage all times in the file are offsets from.
    public var start: Double
    /// The start for people reading the file (UTC, ISO 8601).
    public var startedAt: String
    /// `dashboard` or `watch`.
    public var source: String
    /// Whether the loop's ticks are recorded (the dashboard's); without them a replay ticks each second.
    public var ticks: Bool
    public var solution: ProviderKind.Solution
    public var consumerID: String
    public var driverID: String
    /// Each kind's members in their SDKs' order (the fleet table names them by it), by kind name.
    public var members: [String: [String]]
    public var backend: String
    public var faultsAvailable: Bool
    public var refreshMargin: Double
    public var updateInterval: Double?
    /// `--only`: the one side that ran (`consumer` or `driver`).
    public var only: String?
    public var insecure: Bool
    /// `--provider-logic`, when a sample's ran; absent for tokendash's (and in older recordings).
    public var providerLogic: String?
    /// The panes' "your code: FILE" labels, by role, when a side ran the customer's own class.
    public var sources: [String: String]?
    /// `tap`'s `--churn-limit`: a replay judges each ID's churn as the live table did. Absent for
    /// recordings of simulated providers (and older taps', whose replay shows no churn).
    public var churnLimit: Double?

    enum CodingKeys: String, CodingKey {
        case format, version, tokendash, command, start, source, ticks, solution, members, backend, only, insecure
        case startedAt = "started_at"
        case consumerID = "consumer_id"
        case driverID = "driver_id"
        case faultsAvailable = "faults_available"
        case refreshMargin = "refresh_margin"
        case updateInterval = "update_interval"
        case providerLogic = "provider_logic"
        case sources
        case churnLimit = "churn_limit"
    }

    /// A header for a run that starts at `start`: what wrote it and the IDs it starts on. The
    /// settings a replay restores (backend, margin, `--only`, ...) are set on it afterwards.
    public init(
        solution: ProviderKind.Solution, consumerID: String, driverID: String, members: [ProviderKind: [String]],
        backend: String, command: [String], source: String, tokendash: String, ticks: Bool, start: Date
    ) {
        format = Self.formatName
        version = Self.currentVersion
        self.tokendash = tokendash
        self.command = CommandLineRedactor.redact(command)
        self.start = start.timeIntervalSinceReferenceDate
        startedAt = start.formatted(.iso8601)
        self.source = source
        self.ticks = ticks
        self.solution = solution
        self.consumerID = consumerID
        self.driverID = driverID
        self.members = Dictionary(uniqueKeysWithValues: members.map { ($0.key.rawValue, $0.value) })
        self.backend = SecretRedactor.redact(backend)
        faultsAvailable = false
        refreshMargin = 0
        insecure = false
    }

    public var base: RecordingTimeBase { RecordingTimeBase(reference: start) }

    public var memberIDs: [ProviderKind: [String]] {
        Dictionary(
            uniqueKeysWithValues: members.compactMap { key, ids in ProviderKind(rawValue: key).map { ($0, ids) } })
    }
}

/// The command line as a recording keeps it: `--header` values, URL credentials and anything
/// shaped like a JWT hidden.
public enum CommandLineRedactor {
    public static func redact(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var headerValueNext = false
        for argument in arguments {
            if headerValueNext {
                out.append(hideHeaderValue(argument))
                headerValueNext = false
            } else if argument == "--header" {
                out.append(argument)
                headerValueNext = true
            } else if argument.hasPrefix("--header=") {
                out.append("--header=" + hideHeaderValue(String(argument.dropFirst("--header=".count))))
            } else {
                out.append(SecretRedactor.redact(argument))
            }
        }
        return out
    }

    /// `NAME:VALUE` with the value hidden: header values are API keys and bearer tokens.
    static func hideHeaderValue(_ header: String) -> String {
        guard let colon = header.firstIndex(of: ":") else { return URLRedactor.hidden }
        return header[...colon] + URLRedactor.hidden
    }
}
