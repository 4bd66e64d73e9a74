import FleetEngineAPI
import Foundation
import ProviderEvents
import ProviderVocabulary

/// A provider event as a recording line holds it: every field the panes, the fleet table and
/// `watch` read, times as offsets from the recording's start, tokens as `RecordedToken`, error
/// text redacted.
public struct RecordedEvent: Codable, Equatable, Sendable {
    public var time: Double
    public var provider: ProviderKind
    public var id: String
    /// Which of the kinds, and so which fields below are set.
    public var event: ProviderEvent.Name
    public var count: Int?
    public var reason: String?
    public var token: RecordedToken?
    public var latency: Double?
    public var error: RecordedError?
    public var from: String?
    public var to: String?
    /// An expiry (`cache_hit`, `expired`) or the time a backoff ends (`backing_off`).
    public var at: Double?
    public var attempt: Int?
    /// Fleet Engine's answer (`fleet_engine_call`).
    public var answer: RecordedFleetEngineAnswer?
    /// How the customer's provider class broke the SDK's contract (the five breach events).
    public var breach: ContractBreach?
    /// A request of the customer's class through tokendash's proxy (`backend_request`).
    public var exchange: BackendExchange?

    public init(_ event: ProviderEvent, base: RecordingTimeBase) {
        time = base.offset(event.time)
        provider = event.provider
        id = event.id
        self.event = event.eventName
        switch event.kind {
        case .cacheHit(let count, let expiresAt):
            self.count = count
            at = base.offset(expiresAt)
        case .fetchStarted(let reason):
            self.reason = reason.rawValue
        case .fetched(let token, let latency):
            self.token = RecordedToken(token, base: base)
            self.latency = latency
        case .fetchFailed(let error, let latency):
            self.error = RecordedError(error)
            self.error?.fingerprint = event.refusedFingerprint
            self.latency = latency
        case .idChanged(let from, let to):
            self.from = from
            self.to = to
        case .cacheDropped(let reason):
            self.reason = Redaction.text(reason)
        case .expired(let at):
            self.at = base.offset(at)
        case .forcedRefresh:
            break
        case .backingOff(let until, let attempt):
            at = base.offset(until)
            self.attempt = attempt
        case .fleetEngineCall(let answer):
            self.answer = RecordedFleetEngineAnswer(answer)
        case .breach(let breach):
            self.breach = ContractBreach(breach.kind, Redaction.text(breach.sentence), lines: breach.lines)
        case .printed(let text):
            reason = Redaction.text(text)
        case .backendRequest(let exchange):
            var redacted = exchange
            redacted.target = Redaction.text(exchange.target)
            redacted.problem = exchange.problem.map(Redaction.text)
            self.exchange = redacted
        }
    }

    /// The event again; nil when a field its kind needs is missing.
    public func providerEvent(base: RecordingTimeBase) -> ProviderEvent? {
        let kind: ProviderEvent.Kind
        switch event {
        case .cacheHit:
            guard let count, let at else { return nil }
            kind = .cacheHit(count: count, expiresAt: base.date(at))
        case .fetchStarted:
            guard let reason = reason.flatMap(FetchReason.init(rawValue:)) else { return nil }
            kind = .fetchStarted(reason: reason)
        case .fetched:
            guard let token, let latency else { return nil }
            kind = .fetched(token.token(base: base), latency: latency)
        case .fetchFailed:
            guard let error, let latency else { return nil }
            kind = .fetchFailed(error.error, latency: latency)
        case .idChanged:
            guard let to else { return nil }
            kind = .idChanged(from: from, to: to)
        case .cacheDropped:
            guard let reason else { return nil }
            kind = .cacheDropped(reason: reason)
        case .expired:
            guard let at else { return nil }
            kind = .expired(at: base.date(at))
        case .forcedRefresh:
            kind = .forcedRefresh
        case .backingOff:
            guard let at, let attempt else { return nil }
            kind = .backingOff(until: base.date(at), attempt: attempt)
        case .fleetEngineCall:
            guard let answer = answer?.answer else { return nil }
            kind = .fleetEngineCall(answer)
        case .completionMissing, .completionRepeated, .servedAfterExp, .dataRace, .providerCrashed, .providerKilled:
            // The name and the breach must agree: a line edited to say otherwise is not replayed.
            guard let breach, breach.kind.rawValue == event.rawValue else { return nil }
            kind = .breach(breach)
        case .printed:
            guard let reason else { return nil }
            kind = .printed(reason)
        case .backendRequest:
            guard let exchange else { return nil }
            kind = .backendRequest(exchange)
        }
        return ProviderEvent(
            time: base.date(time), provider: provider, id: id, kind: kind, refusedFingerprint: error?.fingerprint)
    }
}

/// A fetch's failure: its sentence (already redacted, as `FleetAuthError.description` is), and
/// the parts the dashboard and the fleet table act on: a discarded late answer, an HTTP status
/// with its `Retry-After`.
public struct RecordedError: Codable, Equatable, Sendable {
    public var text: String
    public var status: Int?
    public var retryAfter: Int?
    public var requested: String?
    public var current: String?
    /// The token was refused (`FleetAuthError.isTokenRejection`), so `until: rejected` matches in a replay.
    public var rejection: Bool?
    /// The refused token's fingerprint, when the event carried it (`ProviderEvent.refusedFingerprint`).
    public var fingerprint: String?

    enum CodingKeys: String, CodingKey {
        case text, status, requested, current, rejection, fingerprint
        case retryAfter = "retry_after"
    }

    public init(_ error: FleetAuthError) {
        text = error.description
        rejection = error.isTokenRejection ? true : nil
        switch error {
        case .httpStatus(let code, _, let retryAfter):
            status = code
            self.retryAfter = retryAfter
        case .superseded(let requested, let current):
            self.requested = requested
            self.current = current
        default: break
        }
    }

    /// An error whose `description` is `text` again.
    public var error: FleetAuthError {
        if let requested, let current { return .superseded(requested: requested, current: current) }
        if let status {
            // The sentence is "status line[: body]"; the body is what follows the status line.
            let line = FleetAuthError.httpStatus(code: status, body: "", retryAfter: retryAfter).description
            if text == line { return .httpStatus(code: status, body: "", retryAfter: retryAfter) }
            if text.hasPrefix(line + ": ") {
                return .httpStatus(code: status, body: String(text.dropFirst(line.count + 2)), retryAfter: retryAfter)
            }
        }
        return rejection == true ? .replayedRejection(text) : .other(text)
    }
}

/// Fleet Engine's answer to one SDK call, as a recording holds it: its message redacted, as
/// `FleetEngineAnswer` keeps it.
public struct RecordedFleetEngineAnswer: Codable, Equatable, Sendable {
    public var method: String
    public var resource: String
    public var httpStatus: Int?
    public var status: String
    public var message: String
    public var latency: Double
    public var fingerprint: String
    public var rules: String
    public var refusedByProvider: Bool?

    enum CodingKeys: String, CodingKey {
        case method, resource, status, message, latency, fingerprint, rules
        case httpStatus = "http_status"
        case refusedByProvider = "refused_by_provider"
    }

    public init(_ answer: FleetEngineAnswer) {
        method = answer.method.rawValue
        resource = answer.resource
        httpStatus = answer.httpStatus
        status = answer.status
        message = Redaction.text(answer.message)
        latency = answer.latency
        fingerprint = answer.fingerprint
        rules = answer.rules.name
        refusedByProvider = answer.refusedByProvider ? true : nil
    }

    /// The answer again; nil for a method or rule level this version does not know.
    public var answer: FleetEngineAnswer? {
        guard let method = FleetEngineMethod(rawValue: method),
            let rules = RuleLevel.allCases.first(where: { $0.name == self.rules })
        else { return nil }
        return FleetEngineAnswer(
            method: method, resource: resource, httpStatus: httpStatus, status: status, message: message,
            latency: latency, fingerprint: fingerprint, rules: rules,
            refusedByProvider: refusedByProvider ?? false)
    }
}
