import Foundation
import ProviderVocabulary

/// One token fetch a tap saw (`tokendash tap --record`), read down to what the join needs: when,
/// for which ID, and what came of it.
public struct TapFetch: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// A token tokendash's rules pass (warnings included: Fleet Engine may take it).
        case good
        /// A token tokendash's rules refuse, for this reason: Fleet Engine would refuse it too.
        case flawed(String)
        /// No token: the backend failed, for this reason.
        case failed(String)
    }

    public var time: LogInstant
    public var id: LoggedID
    public var outcome: Outcome

    public init(time: LogInstant, id: LoggedID, outcome: Outcome = .good) {
        self.time = time
        self.id = id
        self.outcome = outcome
    }

    /// A failed fetch's sentence (`FleetAuthError.description`, as a recording keeps it) as the
    /// outcome it names, worded so that the same flaw on many fetches is one name: "expired on
    /// arrival", "for another vehicleid", "fails rule exp", or the sentence up to its details.
    public static func outcome(ofFailure text: String, rejected: Bool) -> Outcome {
        if text.hasPrefix("token already expired") { return .flawed("expired on arrival") }
        if text.hasPrefix("token is for "), let claim = text.dropFirst(13).split(separator: " ").first {
            return .flawed("for another \(claim)")
        }
        if text.hasPrefix("token rejected: ") {
            let rules = text.dropFirst(16).split(separator: ";").compactMap { $0.split(separator: ":").first }
            return .flawed(
                "fails rule " + rules.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
        }
        let short = text.range(of: ": ").map { String(text[..<$0.lowerBound]) } ?? text
        return rejected ? .flawed(short) : .failed(short)
    }
}

extension LoggedIDKind {
    /// The ID a provider kind's token is for, as Fleet Engine's labels name it: a driver's
    /// vehicle, a consumer's trip, a delivery driver's delivery vehicle. A delivery consumer's
    /// token is for a tracking ID, which no label names (LMFS "Logging" guide).
    public init?(tokenFor kind: ProviderKind) {
        switch kind {
        case .driver: self = .vehicle
        case .consumer: self = .trip
        case .deliveryDriver: self = .deliveryVehicle
        case .deliveryConsumer: return nil
        }
    }
}

/// Fleet Engine's logs joined with a tap's fetches of the same hours. Fleet Engine logs no
/// authentication error (ODRD and LMFS "Logging" guides), so a device whose calls are refused is
/// silent in the logs; the tap says whether it was fetching tokens meanwhile, and what tokendash
/// found in them. Pure: every time is the logs' or the recording's.
///
/// An ID is quiet, beside its silences, before its first call and after its last when that edge
/// of the export is longer than its own silence threshold (`CallCadence.threshold`): a device
/// refused from some moment on never calls again. An ID the tap saw and the logs never name is
/// quiet for the whole export.
///
/// A fold, as the export's reading is: made from the read export's tally (each ID's quiet
/// windows), then told each fetch as the recording is read, it keeps per ID counts alone, never
/// the fetches, so a recording of a day's fetches is read in the memory of its IDs.
public struct TapJoin: Sendable {
    /// A quiet stretch of one ID and the fetches the tap saw in it.
    public struct Window: Sendable, Equatable {
        public enum Edge: String, Sendable { case start, end, whole }
        public var start: LogInstant
        public var seconds: Double
        /// Nil for a silence between two calls.
        public var edge: Edge?
        public var fetches = 0
        public var flawed = 0
        public var failed = 0

        var end: LogInstant { start.adding(seconds: seconds) }
    }

    /// What the join says of one ID.
    public struct Finding: Sendable, Equatable {
        public enum Verdict: String, Sendable {
            /// Fetched flawed tokens while quiet: running, and refused.
            case refusedWhileSilent = "refused_while_silent"
            /// Every fetch while quiet failed: running, with no token to call with.
            case noTokenWhileSilent = "no_token_while_silent"
            /// Fetched tokens tokendash finds good while quiet.
            case fetchedGoodWhileSilent = "fetched_good_while_silent"
            /// Fetched nothing while quiet: not running, or not behind this tap.
            case notRunning = "not_running"
        }

        public var id: LoggedID
        /// Every fetch of the ID the tap saw, in the export's span or not.
        public var fetches = 0
        /// In time order.
        public var windows: [Window] = []
        /// Why the fetches in quiet windows were flawed or failed, by reason.
        public var flaws: [String: Int] = [:]
        /// Whether the logs name the ID at all.
        public var logged = true
        public var verdict: Verdict?
        public var sentence: String?

        /// Quiet windows the tap explains: it saw the ID fetching in them.
        public var explained: Int { windows.filter { $0.fetches > 0 }.count }
    }

    static let maxFlawNames = 8
    static let maxFlawLength = 120

    private let from: LogInstant?
    private let to: LogInstant?
    /// Each logged ID's windows before any fetch; an ID gets its finding at its first fetch.
    private let quiet: [LoggedID: [Window]]
    private var counted: [LoggedID: Finding] = [:]
    /// Every fetch told, of any ID.
    public private(set) var total = 0

    /// The quiet windows of every ID in `tally`, the read export's.
    public init(_ tally: ExportTally) {
        from = tally.from
        to = tally.to
        quiet = tally.ids.mapValues { Self.windows($0, from: tally.from, to: tally.to) }
    }

    /// `tally`'s silences, and the edges of the export (`from`...`to`) longer than its threshold.
    static func windows(_ tally: IDTally, from: LogInstant?, to: LogInstant?) -> [Window] {
        var windows = tally.silences.map { Window(start: $0.start, seconds: $0.seconds) }
        guard let from, let to, let first = tally.first, let last = tally.last else { return windows }
        let threshold = tally.cadence.threshold
        if from.seconds(to: first) > threshold {
            windows.insert(Window(start: from, seconds: from.seconds(to: first), edge: .start), at: 0)
        }
        if last.seconds(to: to) > threshold {
            windows.append(Window(start: last, seconds: last.seconds(to: to), edge: .end))
        }
        return windows
    }

    /// One fetch the tap saw, counted in the quiet window it fell in, if any. A fetch at a
    /// window's first instant is the call before it; one at its last, the call after.
    public mutating func add(_ fetch: TapFetch) {
        total += 1
        var finding = counted[fetch.id] ?? newFinding(fetch.id)
        finding.fetches += 1
        // The last window starting before the fetch (they are in time order and do not overlap).
        var low = 0
        var high = finding.windows.count
        while low < high {
            let mid = (low + high) / 2
            if finding.windows[mid].start < fetch.time { low = mid + 1 } else { high = mid }
        }
        if low > 0, fetch.time <= finding.windows[low - 1].end {
            let index = low - 1
            finding.windows[index].fetches += 1
            let reason: String?
            switch fetch.outcome {
            case .good: reason = nil
            case .flawed(let why):
                finding.windows[index].flawed += 1
                reason = why
            case .failed(let why):
                finding.windows[index].failed += 1
                reason = why
            }
            if let reason {
                let name = String(reason.prefix(Self.maxFlawLength))
                if finding.flaws[name] != nil || finding.flaws.count < Self.maxFlawNames {
                    finding.flaws[name, default: 0] += 1
                } else {
                    finding.flaws["(other)", default: 0] += 1
                }
            }
        }
        counted[fetch.id] = finding
    }

    private func newFinding(_ id: LoggedID) -> Finding {
        var finding = Finding(id: id)
        if let windows = quiet[id] {
            finding.windows = windows
        } else {
            finding.logged = false
            if let from, let to { finding.windows = [Window(start: from, seconds: from.seconds(to: to), edge: .whole)] }
        }
        return finding
    }

    /// The IDs the tap saw.
    public var ids: [LoggedID] { Array(counted.keys) }

    /// The finding of `id`, judged: for an ID the tap never saw, its windows and no verdict.
    public func finding(_ id: LoggedID) -> Finding {
        var finding = counted[id] ?? newFinding(id)
        Self.judge(&finding)
        return finding
    }

    /// The verdict and its one sentence, for an ID the tap saw fetching: of one it never saw, the
    /// tap knows nothing (it may not stand in front of that device).
    static func judge(_ finding: inout Finding) {
        guard !finding.windows.isEmpty, finding.fetches > 0 else { return }
        let quiet = LogSummary.number(finding.windows.reduce(0) { $0 + $1.seconds })
        let inQuiet = finding.windows.reduce(0) { $0 + $1.fetches }
        let flawed = finding.windows.reduce(0) { $0 + $1.flawed }
        let failed = finding.windows.reduce(0) { $0 + $1.failed }
        let top = finding.flaws.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
        let name = "\(finding.id.kind.rawValue) \(finding.id.id)"
        let stretches = count(finding.windows.count, "stretch", "stretches")
        // The sentence's subject: how the ID was quiet, and what the tap saw meanwhile.
        let logged = finding.logged
        func fetched(_ what: String) -> String {
            logged
                ? "\(name) \(what) through the tap while silent (\(stretches), \(quiet) s)"
                : "\(name) made no call Fleet Engine logged in the export's \(quiet) s and \(what) through the tap"
        }
        if inQuiet == 0 {
            finding.verdict = .notRunning
            finding.sentence = fetched("fetched no token") + ", \(finding.fetches) at other times: not running then."
        } else if flawed > 0 {
            finding.verdict = .refusedWhileSilent
            finding.sentence =
                fetched("fetched " + count(inQuiet, "token", "tokens"))
                + ", \(flawed) of them flawed (\(top)): it was running, "
                + "and Fleet Engine refused its calls, which it does not log."
        } else if failed == inQuiet {
            finding.verdict = .noTokenWhileSilent
            finding.sentence =
                fetched("asked for a token " + count(inQuiet, "time", "times"))
                + ", and every fetch failed (\(top)): it was running, with no token to call Fleet Engine with."
        } else {
            finding.verdict = .fetchedGoodWhileSilent
            finding.sentence =
                fetched("fetched " + count(inQuiet, "token", "tokens") + " tokendash finds good")
                + ": it was running, and its tokens do not explain the silence."
        }
    }

    static func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
}

/// The join's findings counted once, for the summary's JSON and the screen's header alike.
public struct TapTotals: Sendable {
    /// The verdicts in the order both say them.
    public static let verdicts: [TapJoin.Finding.Verdict] = [
        .refusedWhileSilent, .noTokenWhileSilent, .fetchedGoodWhileSilent, .notRunning,
    ]
    /// IDs the tap saw fetching.
    public let fetchingIDs: Int
    /// IDs by verdict, in `verdicts`' order.
    public let byVerdict: [(verdict: TapJoin.Finding.Verdict, ids: Int)]
    /// IDs the tap saw that the logs never name.
    public let onlyInTap: Int

    public init(_ findings: [LoggedID: TapJoin.Finding]) {
        fetchingIDs = findings.values.count { $0.fetches > 0 }
        byVerdict = Self.verdicts.map { verdict in (verdict, findings.values.count { $0.verdict == verdict }) }
        onlyInTap = findings.values.count { !$0.logged }
    }
}
