import Dashboard
import Fleet
import FleetTables
import Foundation
import ProviderVocabulary
import Recording
import UICore

/// `tokendash report REC -o report.html`: the session as one page that opens anywhere, offline.
/// Everything is inline (style sheet, SVG); nothing is loaded. It reads in a light and a dark
/// scheme (`prefers-color-scheme`) and prints; its tables are tables, its sections headed, and
/// what colour says, words and shapes say too.
enum HTMLReport {
    /// The page for `recording`, its frames in `theme`; `name` is the recording's file as the page
    /// cites it. `marks` makes a watcher's fleet-table marks (`TapTableMarks.maker` for a tapped session).
    static func make(
        _ recording: Recording, theme: Theme, name: String, version: String,
        marks: (@Sendable () -> any FleetTableMarks)? = nil
    ) -> String {
        page(SessionDigest(recording, theme: theme, tableMarks: marks), name: name, version: version)
    }

    static func page(_ digest: SessionDigest, name: String, version: String) -> String {
        let h = digest.header
        var themes: [String: String] = [:]
        for moment in digest.marks where themes[moment.theme.name] == nil {
            // A class name from the theme's: letters and digits only.
            themes[moment.theme.name] =
                "t-"
                + String(
                    moment.theme.name.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        }
        var body = """
            <header>
            <h1>tokendash session report</h1>
            <dl class="facts">
            <dt>Recording</dt><dd>\(HTML.text(name))</dd>
            <dt>Started</dt><dd>\(HTML.escape(h.startedAt))</dd>
            <dt>Length</dt><dd>\(duration(digest.end.timeIntervalSince(digest.start)))</dd>
            <dt>Recorded by</dt><dd>\(HTML.text(h.tokendash)), <code>\(HTML.text(h.command.joined(separator: " ")))</code></dd>
            <dt>Backend</dt><dd>\(HTML.text(h.backend))</dd>
            <dt>IDs</dt><dd>\(HTML.text(h.consumerID)) and \(HTML.text(h.driverID))</dd>
            </dl>
            <p class="notice" role="note"><strong>Redacted:</strong> tokens appear as their first 12 and last 6 characters and an 8-digit fingerprint; a recording never holds a whole token, and URL credentials and header values are hidden.\(digest.revealed ? " <strong>A token was revealed on screen during the session; it is shown redacted here.</strong>" : "")</p>

            """
        for problem in digest.problems {
            body += "<p class=\"notice problem\" role=\"alert\"><strong>Cut short:</strong> \(HTML.text(problem))</p>\n"
        }
        for (table, count) in digest.cut.sorted(by: { $0.key < $1.key }) {
            body +=
                "<p class=\"notice\"><strong>Shortened:</strong> the \(HTML.escape(table)) leave out \(count) more; <code>tokendash replay \(HTML.text(name)) --to-watch</code> prints every event.</p>\n"
        }
        body += "</header>\n<main>\n"
        body += providers(digest)
        body += tapped(digest)
        body +=
            "<section aria-labelledby=\"timeline\"><h2 id=\"timeline\">Timeline</h2>\n<figure>\(TimelineSVG.make(digest))<figcaption>Lanes per provider: tokens held (bars), requests and Fleet Engine calls (● succeeded, ✗ failed), marks (dashed, numbered). Times in UTC.</figcaption></figure>\n"
        body += moments(digest) + "</section>\n"
        body += marks(digest, themes: themes)
        body += answers(digest)
        body += tokens(digest)
        body += log(digest)
        body += "</main>\n<footer><p>Made by tokendash \(HTML.text(version)) from \(HTML.text(name)).</p></footer>\n"
        let frameStyles = themes.sorted { $0.key < $1.key }.compactMap { name, cls in
            digest.marks.first { $0.theme.name == name }.map { CanvasHTML.styleSheet($0.theme, themeClass: cls) }
        }.joined()
        return document(
            title: "tokendash session \(HTML.escape(h.startedAt))", styles: ReportStyle.css + frameStyles, body: body)
    }

    /// A page loading nothing from the network: its one style sheet inline, and a policy saying so.
    static func document(title: String, styles: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
        <title>\(title)</title>
        <style>
        \(styles)</style>
        </head>
        <body>
        \(body)</body>
        </html>

        """
    }

    static func providers(_ digest: SessionDigest) -> String {
        var out = "<section aria-labelledby=\"providers\"><h2 id=\"providers\">Providers</h2>\n"
        for kind in digest.kinds {
            let tally = digest.tallies[kind] ?? ProviderTally(kind: kind)
            out +=
                "<h3>\(HTML.escape(kind.spec.paneTitle))</h3>\n<p class=\"verdict \(tally.healthy ? "good" : "bad")\">\(tally.healthy ? "✓" : "✗") \(HTML.text(tally.verdict))</p>\n"
        }
        out +=
            "<table><caption>Counts per provider</caption>\n<thead><tr><th scope=\"col\">Provider</th><th scope=\"col\">Requests</th><th scope=\"col\">Cache hits</th><th scope=\"col\">Errors</th><th scope=\"col\">Tokens refused</th><th scope=\"col\">Fleet Engine answers</th><th scope=\"col\">Fleet Engine errors</th><th scope=\"col\">Disagreements</th></tr></thead>\n<tbody>\n"
        for kind in digest.kinds {
            let t = digest.tallies[kind] ?? ProviderTally(kind: kind)
            out +=
                "<tr><th scope=\"row\">\(HTML.escape(kind.rawValue))</th><td>\(t.counters.requests)</td><td>\(t.counters.hits)</td><td>\(t.counters.errors)</td><td>\(t.refusals)</td><td>\(t.fleetEngineAnswers)</td><td>\(t.fleetEngineRefusals + t.fleetEngineOtherErrors)</td><td>\(t.disagreements)</td></tr>\n"
        }
        return out + "</tbody></table>\n</section>\n"
    }

    static func moments(_ digest: SessionDigest) -> String {
        guard !digest.moments.isEmpty else { return "" }
        var out = "<h3>What happened</h3>\n<ol class=\"moments\">\n"
        for moment in digest.moments {
            out += "<li><time>\(SessionDigest.clock(moment.time))</time> \(HTML.text(moment.label))</li>\n"
        }
        return out + "</ol>\n"
    }

    static func marks(_ digest: SessionDigest, themes: [String: String]) -> String {
        var out = "<section aria-labelledby=\"marks\"><h2 id=\"marks\">Marks</h2>\n"
        if digest.marks.isEmpty { out += "<p>No mark was made (<kbd>m</kbd> marks a moment, with a note).</p>\n" }
        for moment in digest.marks {
            let mark = moment.mark
            let title = "Mark \(mark.number) at \(SessionDigest.clock(mark.at))"
            out += "<article class=\"mark\"><h3>\(title)</h3>\n"
            out += "<p class=\"note\">\(mark.note.map { "Note: " + HTML.text($0) } ?? "No note.")</p>\n"
            out +=
                "<div class=\"frame-box\">"
                + CanvasHTML.frame(
                    moment.frame, themeClass: themes[moment.theme.name] ?? "",
                    label: "The dashboard at \(title.lowercased()), as text") + "</div>\n</article>\n"
        }
        return out + "</section>\n"
    }

    static func duration(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else { return "?" }
        let s = Int(seconds.rounded())
        return s >= 3600
            ? "\(s / 3600) h \(s / 60 % 60) min \(s % 60) s" : s >= 60 ? "\(s / 60) min \(s % 60) s" : "\(s) s"
    }
}
