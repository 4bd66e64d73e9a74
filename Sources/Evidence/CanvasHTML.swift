import UICore

/// A frame as HTML: a `<pre>` of the canvas's rows, each run of one role a `<span>` whose class
/// names the role, coloured by a style sheet made from the theme the frame was shown in. The
/// text stays text: a screen reader reads it, a search finds it, a printer prints it.
enum CanvasHTML {
    /// The frame's `<pre>`, labelled for assistive technology with `label`.
    static func frame(_ canvas: Canvas, themeClass: String, label: String) -> String {
        var out = "<pre class=\"frame \(themeClass)\" aria-label=\"\(HTML.escape(label))\">"
        for y in 0..<canvas.height {
            var x = 0
            while x < canvas.width {
                let role = canvas[x, y].role
                var scalars = String.UnicodeScalarView()
                while x < canvas.width, canvas[x, y].role == role {
                    scalars.append(canvas[x, y].scalar)
                    x += 1
                }
                let text = HTML.escape(String(scalars))
                out += role == .text ? text : "<span class=\"r-\(role.rawValue)\">\(text)</span>"
            }
            out += "\n"
        }
        return out + "</pre>"
    }

    /// The style sheet of frames drawn in `theme`, under `.themeClass`. A frame keeps the
    /// terminal's look in either colour scheme: the theme's colours, a dark terminal's where it
    /// leaves them to the terminal.
    static func styleSheet(_ theme: Theme, themeClass: String) -> String {
        let body = theme.style(.text)
        let fg = body.foreground.hex ?? "#e5e5e5"
        let bg = body.background.hex ?? "#000000"
        var css = ".\(themeClass){color:\(fg);background:\(bg)}\n"
        for role in StyleRole.allCases where role != .text {
            let style = theme.style(role)
            var color = style.foreground.hex ?? fg
            var background = style.background.hex ?? bg
            if style.reverse { swap(&color, &background) }
            var rule = "color:\(color);background:\(background)"
            if style.bold { rule += ";font-weight:bold" }
            if style.underline { rule += ";text-decoration:underline" }
            css += ".\(themeClass) .r-\(role.rawValue){\(rule)}\n"
        }
        return css
    }
}
