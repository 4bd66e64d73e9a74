import Redaction

/// Where a provider class of the customer's own (run by `ProviderHost`) broke what the SDK's
/// reference asks of a `GMTDAuthorization` or `GMTCAuthorization`: "Implementations of this
/// protocol must be thread-safe", the completion is called once, and the token handed back is
/// valid. tokendash's own providers and the sample ports never produce one.
public struct ContractBreach: Sendable, Equatable, Codable {
    /// The breach's name, as `watch` prints it and scripts match it: one per row of docs/your-provider.md's
    /// "Your own provider" events table.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// The completion was not called within `--completion-timeout` seconds.
        case completionMissing = "completion_missing"
        /// The completion was called more than once for one call.
        case completionRepeated = "completion_repeated"
        /// The class handed back a token whose `exp` had passed.
        case servedAfterExp = "served_after_exp"
        /// ThreadSanitizer saw two threads touch the class's state with no lock between them.
        case dataRace = "data_race"
        /// The process running the class died: a trap, `fatalError`, a force-unwrapped nil.
        case providerCrashed = "provider_crashed"
        /// tokendash ended the process running the class, for the cause the sentence names: a
        /// call blocked past its deadline, `init()` past its own, a flood of prints, requests no
        /// longer read. Every such end is one event, as every crash is.
        case providerKilled = "provider_killed"
    }

    public var kind: Kind
    /// One sentence in words a customer understands, already redacted: what the pane shows.
    public var sentence: String
    /// The lines of the customer's file the breach names (a data race's two), for the pane's
    /// "shown once per pair of lines" and for scripts.
    public var lines: [Int]

    public init(_ kind: Kind, _ sentence: String, lines: [Int] = []) {
        self.kind = kind
        self.sentence = SecretRedactor.redact(sentence)
        self.lines = lines
    }
}
