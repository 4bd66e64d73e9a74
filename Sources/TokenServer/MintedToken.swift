import Foundation
import ProviderVocabulary

/// One signed token and the times it carries, as the server hands it out.
public struct MintedToken: Sendable, Equatable {
    public var jwt: String
    public var kind: ProviderKind
    /// The ID in the `authorization` claim (not always the one asked for: see `Fault.wrongID`).
    public var id: String
    public var issuedAt: Date
    public var expiresAt: Date
}
