import Fleet
import ProviderEvents
import ProviderVocabulary

/// One provider kind's session in numbers, and the sentence that sums it up.
struct ProviderTally: Sendable, Equatable {
    var kind: ProviderKind
    var counters = ProviderCounters()
    /// Tokens the provider refused (rules, wrong ID, already expired), among `counters.errors`.
    var refusals = 0
    var lastError: String?
    var fleetEngineAnswers = 0
    var fleetEngineRefusals = 0
    var fleetEngineOtherErrors = 0
    var disagreements = 0
    /// Fleet Engine's error statuses, each once, in the order they first came.
    var fleetEngineStatuses: [String] = []

    init(kind: ProviderKind) { self.kind = kind }

    mutating func record(_ event: ProviderEvent) {
        counters.record(event)
        switch event.kind {
        case .fetchFailed(let error, _):
            if case .superseded = error { return }
            if error.isTokenRejection { refusals += 1 }
            lastError = error.description
        case .fleetEngineCall(let answer):
            fleetEngineAnswers += 1
            if answer.verdictDisagrees { disagreements += 1 }
            switch answer.tokenVerdict {
            case .refused: fleetEngineRefusals += 1
            case .unknown: fleetEngineOtherErrors += 1
            case .accepted: break
            }
            if !answer.succeeded, answer.httpStatus != 404, !fleetEngineStatuses.contains(answer.status) {
                fleetEngineStatuses.append(answer.status)
            }
        default: break
        }
    }

    /// How the session went for this kind, as a value: the report's colour and mark are decided
    /// from it, never from the wording of `verdict`.
    enum Health: Sendable, Equatable {
        /// No token was asked for, none was served from the cache, Fleet Engine was not called.
        case unused
        case healthy
        /// A failed token request, a Fleet Engine error, or the rules and Fleet Engine disagreeing.
        case trouble
    }

    var health: Health {
        if counters.requests == 0, counters.hits == 0, fleetEngineAnswers == 0 { return .unused }
        let troubled =
            counters.errors > 0 || fleetEngineRefusals > 0 || fleetEngineOtherErrors > 0 || disagreements > 0
        return troubled ? .trouble : .healthy
    }

    /// The verdict in one sentence, words first, so it means the same without its colour.
    var verdict: String {
        let requests = counters.requests
        let errors = counters.errors
        let health = health
        if health == .unused { return "Not used: no token was asked for." }
        let troubled = health == .trouble
        var parts: [String] = []
        if errors == 0 {
            parts.append("all \(requests) token request\(requests == 1 ? "" : "s") succeeded")
        } else {
            parts.append(
                "\(errors) of \(requests) token requests failed"
                    + (refusals > 0 ? " (\(refusals) token\(refusals == 1 ? "" : "s") refused by the rules)" : "")
                    + (lastError.map { ", the last: \($0)" } ?? ""))
        }
        if fleetEngineAnswers == 0 {
            parts.append("Fleet Engine was not called")
        } else if fleetEngineRefusals + fleetEngineOtherErrors == 0 {
            parts.append("Fleet Engine accepted the token in all \(fleetEngineAnswers) calls")
        } else {
            parts.append(
                "Fleet Engine answered \(fleetEngineRefusals + fleetEngineOtherErrors) of \(fleetEngineAnswers) calls with an error (\(fleetEngineStatuses.joined(separator: ", ")))"
            )
        }
        if disagreements > 0 {
            parts.append("the rules and Fleet Engine disagreed \(disagreements) time\(disagreements == 1 ? "" : "s")")
        }
        // Troubles are clauses with their own commas: semicolons keep them apart.
        let sentence =
            troubled
            ? parts.joined(separator: "; ")
            : parts.dropLast().joined(separator: ", ") + (parts.count > 1 ? " and " : "") + (parts.last ?? "")
        return (troubled ? "Trouble: " : "Healthy: ") + sentence + "."
    }

    var healthy: Bool { health == .healthy }
}
