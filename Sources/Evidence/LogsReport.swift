import LogReading
import LogsScreen
import UICore

/// A logs recording as one HTML page (`tokendash report LOGS.rec -o page.html`): what the logs
/// screen says, for a customer who has no tokendash. The export's span and counts, every ID
/// troubled first (calls, errors by code, silences with their times, SDK), the version table, and
/// the screen's table at the end as a frame. Text from the export is escaped and redacted.
public enum LogsReport {
    public static func page(_ view: LogsView, theme: Theme, name: String, version: String) -> String {
        let summary = view.player?.whole ?? view.summary
        let end = view.player.map { view.playing(endOf: $0) } ?? view
        var body = """
            <header>
            <h1>tokendash logs report</h1>
            <dl class="facts">
            <dt>Recording</dt><dd>\(HTML.text(name))</dd>
            <dt>Span</dt><dd>\(HTML.escape(span(summary)))</dd>
            <dt>Entries</dt><dd>\(summary.entries)\(skipped(summary))</dd>
            <dt>IDs</dt><dd>\(summary.ids.count { $0.id.kind.isDevice }) devices, \(summary.ids.count { !$0.id.kind.isDevice }) trips and tasks; \(summary.ids.count { !$0.silences.isEmpty }) with a silence, \(summary.ids.count { !$0.errors.isEmpty }) with errors</dd>
            </dl>
            <p class="notice" role="note"><strong>A silence</strong> is a gap in an ID's calls longer than ten times its usual interval and at least a minute. Fleet Engine logs no authentication error, so a device whose tokens are refused goes silent; an app in the background is silent too. A tap recording of the same hours (<code>tokendash logs EXPORT --tap REC</code>) tells them apart.</p>
            </header>
            <main>

            """
        body += ids(LogsView(summary, source: "").rows)
        body += versions(summary.versions)
        body +=
            "<section aria-labelledby=\"screen\"><h2 id=\"screen\">The logs screen</h2>\n<div class=\"frame-box\">"
            + CanvasHTML.frame(
                LogsRenderer.render(end, width: 160, height: 48), themeClass: "t-frame",
                label: "The logs screen at the export's end, as text") + "</div>\n</section>\n"
        body += "</main>\n<footer><p>Made by tokendash \(HTML.text(version)) from \(HTML.text(name)).</p></footer>\n"
        return HTMLReport.document(
            title: "tokendash logs \(HTML.text(name))",
            styles: ReportStyle.css + CanvasHTML.styleSheet(theme, themeClass: "t-frame"), body: body)
    }

    static func span(_ summary: LogSummary) -> String {
        guard let from = summary.from, let to = summary.to else { return "no entries" }
        return "\(from) to \(to) (\(Int(from.seconds(to: to).rounded())) s)"
    }

    static func skipped(_ summary: LogSummary) -> String {
        let total = summary.skipped.values.reduce(0, +)
        guard total > 0 else { return "" }
        return "; skipped \(total): "
            + summary.skipped.sorted { $0.key < $1.key }.map { "\(HTML.escape($0.key.rawValue)) \($0.value)" }
            .joined(separator: ", ")
    }

    static func ids(_ rows: [LogsView.Row]) -> String {
        var out = """
            <section aria-labelledby="ids"><h2 id="ids">IDs, troubled first</h2>
            <table><thead><tr><th>Kind</th><th>ID</th><th>Calls</th><th>Errors</th><th>Calls a minute</th><th>Silences</th><th>Last call</th><th>Platform</th><th>SDK</th><th>OS</th></tr></thead><tbody>

            """
        for row in rows {
            let tally = row.tally
            let errors = tally.errors.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                .map { "\(HTML.text($0.key)) \($0.value)" }.joined(separator: ", ")
            let silences = tally.silences.map {
                "\(HTML.escape($0.start.description)) for \(Int($0.seconds.rounded())) s"
            }
            .joined(separator: "<br>")
            let trouble =
                tally.silences.isEmpty ? (tally.errors.isEmpty ? "" : " class=\"level-warn\"") : " class=\"level-fail\""
            out +=
                "<tr\(trouble)><td>\(HTML.escape(tally.id.kind.rawValue))</td><td><code>\(HTML.text(tally.id.id))</code></td>"
            out += "<td>\(tally.calls)</td><td>\(errors.isEmpty ? "-" : errors)</td>"
            out +=
                "<td>\(String(format: "%.1f", tally.callsPerMinute))</td><td>\(silences.isEmpty ? "-" : silences)</td>"
            out += "<td>\(tally.last.map { HTML.escape($0.description) } ?? "-")</td>"
            out +=
                "<td>\(HTML.text(tally.header?.platform ?? ""))</td><td>\(HTML.text([tally.header?.sdkType, tally.header?.sdkVersion].compactMap { $0 }.joined(separator: " ")))</td>"
            out += "<td>\(HTML.text(tally.header?.osVersion ?? ""))</td></tr>\n"
        }
        return out + "</tbody></table>\n</section>\n"
    }

    static func versions(_ rows: [VersionRow]) -> String {
        var out = """
            <section aria-labelledby="versions"><h2 id="versions">By app version</h2>
            <table><thead><tr><th>Platform</th><th>SDK type</th><th>SDK version</th><th>Devices</th><th>Calls</th><th>Errors</th><th>Silences</th><th>Silent devices</th></tr></thead><tbody>

            """
        for row in rows {
            out += "<tr><td>\(HTML.text(row.platform ?? "-"))</td><td>\(HTML.text(row.sdkType ?? "-"))</td>"
            out += "<td>\(HTML.text(row.sdkVersion ?? "-"))</td><td>\(row.devices)</td><td>\(row.calls)</td>"
            out += "<td>\(row.errors)</td><td>\(row.silences)</td><td>\(row.silentDevices)</td></tr>\n"
        }
        return out + "</tbody></table>\n</section>\n"
    }
}
