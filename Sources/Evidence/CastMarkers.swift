import Dashboard
import Faults
import Foundation
import ProviderEvents
import ProviderVocabulary
import Redaction

/// The moments a cast marks as chapters, each with a short label: marks and their notes, ID
/// switches, faults switched on or off, tokens refused, Fleet Engine's errors and disagreements,
/// scenario steps and their captions, and a revealed token (written redacted). Fed every action
/// in order; what repeats (the same Fleet Engine error every call) is marked once, when it begins.
struct CastMarkers: Sendable {
    private var faults: [ProviderKind: Fault] = [:]
    private var fleetEngine: [ProviderKind: String] = [:]
    private var step: Int?
    private var caption: String?
    private var revealed = false

    init() {}

    /// The labels `action` brings, in order.
    mutating func labels(for action: Action) -> [String] {
        switch action {
        case .recorded(let inner): return labels(for: inner)
        case .marked(let mark):
            return ["mark \(mark.number)" + (mark.note.map { ": " + SecretRedactor.redact($0) } ?? "")]
        case .faultsChanged(let now):
            defer { faults = now }
            return ProviderKind.allCases.compactMap { kind in
                switch (faults[kind], now[kind]) {
                case (let old?, nil): "fault off: \(kind.rawValue) \(old.label())"
                case (let old, let new?) where old != new: "fault on: \(kind.rawValue) \(new.label())"
                default: nil
                }
            }
        case .scenario(let banner):
            guard let banner, banner.step != step || banner.isFinished else { return [] }
            defer { (step, caption) = banner.isFinished ? (nil, nil) : (banner.step, banner.caption) }
            if banner.isFinished { return ["scenario \(banner.name) finished"] }
            // A step without a caption of its own keeps the one before on the banner: not a new chapter.
            guard banner.caption != caption || banner.caption == nil else { return [] }
            return [
                "scenario \(banner.name) step \(banner.step)/\(banner.count)" + (banner.caption.map { ": " + $0 } ?? "")
            ]
        case .event(let event): return labels(for: event)
        default: return []
        }
    }

    /// Reveal went on in this state: the cast shows the token redacted, and says so once per reveal.
    mutating func reveal(_ on: Bool) -> [String] {
        defer { revealed = on }
        return on && !revealed ? ["token revealed on screen: written here redacted"] : []
    }

    private mutating func labels(for event: ProviderEvent) -> [String] {
        switch event.kind {
        case .idChanged(let from, let to):
            return ["\(event.provider.spec.idNoun) \(from ?? "none") → \(to)"]
        case .fetchFailed(let error, _) where error.isTokenRejection:
            return ["refused: \(event.provider.rawValue) \(event.id): \(error.description)"]
        case .fleetEngineCall(let answer):
            let key = answer.status + (answer.verdictDisagrees ? " disagrees" : "")
            defer { fleetEngine[event.provider] = key }
            guard key != fleetEngine[event.provider], !answer.succeeded || answer.verdictDisagrees else { return [] }
            if answer.verdictDisagrees { return ["Fleet Engine disagrees: \(answer.summary)"] }
            return answer.tokenVerdict == .accepted ? [] : ["Fleet Engine: \(answer.summary)"]
        default: return []
        }
    }
}
