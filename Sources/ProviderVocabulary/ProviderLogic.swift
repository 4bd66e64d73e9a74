/// Whose token-provider logic the simulated SDKs run: tokendash's own core, or a faithful port of
/// the Swift or the Objective-C sample on Google's "Get authorization tokens" pages. Customers
/// copy those samples, so their apps behave as the samples do, flaws included; running the same
/// fleet on each logic shows the difference. The raw values are the command line's names.
public enum ProviderLogic: String, Sendable, CaseIterable, Codable {
    /// `CachingTokenProvider`: single-flight, refresh-ahead, stale answers discarded, backoff.
    case tokendash
    /// `SwiftSampleTokenProvider`.
    case swiftSample = "swift-sample"
    /// `ObjCSampleTokenProvider`.
    case objcSample = "objc-sample"

    /// What a pane's title adds to say whose logic runs; nil for tokendash, whose titles stay as they are.
    public var paneLabel: String? {
        switch self {
        case .tokendash: nil
        case .swiftSample: "Swift sample"
        case .objcSample: "ObjC sample"
        }
    }

    /// The command line's names, for a message that lists them.
    public static var names: [String] { allCases.map(\.rawValue) }
}
