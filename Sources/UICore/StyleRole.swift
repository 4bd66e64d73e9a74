/// What a cell means, not how it looks: the theme decides the colours, so switching themes
/// needs no re-render and tests can read roles instead of colour numbers.
public enum StyleRole: String, Hashable, Sendable, CaseIterable, BitwiseCopyable {
    case text, dim, header, border, borderFocused, title
    case ok, warning, error
    case gaugeFresh, gaugeMargin, gaugeCritical, gaugeEmpty
    case logInfo, logHit, logWarning, logError
    case keyHint, keyLabel, overlay, selected
}
