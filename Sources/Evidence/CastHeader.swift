import Foundation
import UICore

/// An asciicast v2 header (docs.asciinema.org, "asciicast v2"): the first line of a cast.
struct CastHeader: Encodable, Equatable, Sendable {
    var version = 2
    var width: Int
    var height: Int
    /// The session's start, seconds since the Unix epoch.
    var timestamp: Int
    /// A player shortens any pause longer than this; nil leaves pauses as they were.
    var idleTimeLimit: Double?
    var title: String
    var env: [String: String]
    var theme: Palette

    /// The terminal colours a player draws the cast in: the tokendash theme's body colours and
    /// the 16 ANSI colours its roles name.
    struct Palette: Encodable, Equatable, Sendable {
        var fg: String
        var bg: String
        /// 16 colours, `#rrggbb`, separated by `:`.
        var palette: String
    }

    enum CodingKeys: String, CodingKey {
        case version, width, height, timestamp, title, env, theme
        case idleTimeLimit = "idle_time_limit"
    }

    /// The header of a cast of `width`x`height` frames in `theme`. A theme that leaves the body to
    /// the terminal's own colours gets a dark terminal's (the default theme is made for one).
    init(
        width: Int, height: Int, start: Date, idleTimeLimit: Double?, title: String, term: String, shell: String,
        theme: Theme
    ) {
        self.width = width
        self.height = height
        timestamp = Int(start.timeIntervalSince1970.rounded(.down))
        self.idleTimeLimit = idleTimeLimit
        self.title = title
        env = ["TERM": term, "SHELL": shell]
        let body = theme.style(.text)
        self.theme = Palette(
            fg: body.foreground.hex ?? "#e5e5e5", bg: body.background.hex ?? "#000000",
            palette: (0..<16).map { ThemeColor.hex(ThemeColor.rgb(ofIndex: $0)) }.joined(separator: ":"))
    }

    /// The header as the cast's first line, newline included.
    var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our own strings and numbers, none of them NaN: encoding does not fail.
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
