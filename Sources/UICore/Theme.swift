/// How one role looks.
public struct ThemeStyle: Hashable, Sendable {
    public var foreground: ThemeColor = .terminalDefault
    public var background: ThemeColor = .terminalDefault
    public var bold = false
    public var reverse = false
    public var underline = false
    public init(
        foreground: ThemeColor = .terminalDefault, background: ThemeColor = .terminalDefault,
        bold: Bool = false, reverse: Bool = false, underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.reverse = reverse
        self.underline = underline
    }

    /// The same style without colours: what `NO_COLOR` and colourless terminals get.
    public var monochrome: ThemeStyle { ThemeStyle(bold: bold, reverse: reverse, underline: underline) }
}

/// A named mapping from roles to styles, loaded from `Themes/NAME.yaml`.
public struct Theme: Equatable, Sendable {
    public var name: String
    public var styles: [StyleRole: ThemeStyle]

    public init(name: String, styles: [StyleRole: ThemeStyle]) {
        self.name = name
        self.styles = styles
    }

    /// How `role` looks. A role with no background of its own takes the body's, so a theme that
    /// paints its background (a light theme on a dark terminal) paints all of it.
    public func style(_ role: StyleRole) -> ThemeStyle {
        let body = styles[.text] ?? ThemeStyle()
        guard var style = styles[role] else { return body }
        if style.background == .terminalDefault, !style.reverse { style.background = body.background }
        return style
    }

    /// Colours dropped, emphasis kept.
    public var monochrome: Theme {
        Theme(name: name, styles: styles.mapValues(\.monochrome))
    }

    /// The theme's key in a file for each role, k9s-skin style.
    public static let keys: [String: StyleRole] = [
        "body": .text, "dim": .dim, "header": .header,
        "frame.border": .border, "frame.focused": .borderFocused, "frame.title": .title,
        "status.ok": .ok, "status.warning": .warning, "status.error": .error,
        "countdown.fresh": .gaugeFresh, "countdown.margin": .gaugeMargin, "countdown.critical": .gaugeCritical,
        "countdown.empty": .gaugeEmpty,
        "log.info": .logInfo, "log.hit": .logHit, "log.warning": .logWarning, "log.error": .logError,
        "keys.hint": .keyHint, "keys.label": .keyLabel, "overlay": .overlay, "selected": .selected,
    ]
}
