import ProviderVocabulary

/// One member's provider as it stands, read when a pane starts following it: the pane shows the
/// cached token at once instead of "none yet" until the member's next fetch.
public struct MemberSnapshot: Sendable, Equatable {
    public var id: String
    public var token: FetchedToken?
    /// Why the last fetch failed, while none has succeeded since.
    public var lastError: String?
    public var fetching: Bool
    /// A tap's real ID: its last hour from the tap's ledger.
    public var tapped: TappedHistory?

    public init(
        id: String, token: FetchedToken? = nil, lastError: String? = nil, fetching: Bool = false,
        tapped: TappedHistory? = nil
    ) {
        self.tapped = tapped
        self.id = id
        self.token = token
        self.lastError = lastError
        self.fetching = fetching
    }
}
