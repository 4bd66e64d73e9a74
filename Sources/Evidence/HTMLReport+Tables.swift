import Foundation
import JSONValues
import ProviderVocabulary
import Redaction

extension HTMLReport {
    /// Fleet Engine's answers; a disagreement with the rules is a highlighted row that says so in words.
    static func answers(_ digest: SessionDigest) -> String {
        var out = "<section aria-labelledby=\"answers\"><h2 id=\"answers\">Fleet Engine's answers</h2>\n"
        guard !digest.answers.isEmpty else {
            return out + "<p>No SDK called Fleet Engine in this session.</p>\n</section>\n"
        }
        let disagreements = digest.answers.filter { $0.answer.verdictDisagrees }.count
        out +=
            "<p>\(digest.answers.count) answers; \(disagreements == 0 ? "the rules and Fleet Engine agreed on every token" : "<strong>\(disagreements) disagree with the rules</strong> (marked ⚠)").</p>\n"
        out +=
            "<table class=\"answers\"><caption>Each SDK call with its token, and Fleet Engine's answer</caption>\n<thead><tr><th scope=\"col\">Time</th><th scope=\"col\">Provider</th><th scope=\"col\">Call</th><th scope=\"col\">HTTP</th><th scope=\"col\">Status</th><th scope=\"col\">Message</th><th scope=\"col\">Token</th><th scope=\"col\">Rules said</th><th scope=\"col\">Agreement</th></tr></thead>\n<tbody>\n"
        for row in digest.answers {
            let a = row.answer
            let agreement =
                a.disagreement.map { "⚠ " + HTML.text($0) }
                ?? (a.tokenVerdict == .unknown ? "no verdict on the token" : "agree")
            out +=
                "<tr\(a.verdictDisagrees ? " class=\"disagree\"" : a.succeeded ? "" : " class=\"failed\"")><td>\(SessionDigest.clock(row.time))</td><td>\(HTML.escape(row.provider.rawValue)) \(HTML.text(row.id))</td><td>\(HTML.escape(a.method.rawValue)) <code>\(HTML.text(a.resource))</code></td><td>\(a.httpStatus.map(String.init) ?? "none")</td><td>\(HTML.escape(a.status))</td><td>\(HTML.text(a.message))</td><td><code>\(HTML.escape(a.fingerprint))</code>\(a.refusedByProvider ? " (refused by the provider, sent to ask)" : "")</td><td>\(a.rules.symbol) \(a.rules.name)</td><td>\(agreement)</td></tr>\n"
        }
        return out + "</tbody></table>\n</section>\n"
    }

    /// Each distinct token, redacted, decoded, and judged rule by rule as `decode` prints it, with
    /// where each rule comes from.
    static func tokens(_ digest: SessionDigest) -> String {
        var out = "<section aria-labelledby=\"tokens\"><h2 id=\"tokens\">Tokens</h2>\n"
        if digest.tokens.isEmpty { out += "<p>No token was fetched in this session.</p>\n" }
        for row in digest.tokens {
            let token = row.token
            let failures = row.rules.filter { $0.level == .fail }.count
            let warnings = row.rules.filter { $0.level == .warn }.count
            let verdict =
                failures > 0
                ? "Fleet Engine would refuse it: \(failures) rule\(failures == 1 ? "" : "s") failed"
                : warnings > 0
                    ? "Fleet Engine would accept it, with \(warnings) warning\(warnings == 1 ? "" : "s")"
                    : "Fleet Engine would accept it"
            out +=
                "<article class=\"token\"><h3>Token <code>\(HTML.escape(token.fingerprint))</code>: \(HTML.escape(row.provider.spec.idNoun)) \(HTML.text(token.id))</h3>\n"
            out +=
                "<p><code class=\"redacted\">\(HTML.text(TokenRedactor.redact(token.token)))</code> received \(SessionDigest.clock(token.receivedAt)), expires \(SessionDigest.clock(token.expiresAt))\(token.shape.map { ", shape " + HTML.text($0) } ?? "").</p>\n"
            out +=
                "<div class=\"decoded\"><div><h4>Header</h4><pre>\(HTML.text(pretty(token.jwt.header)))</pre></div><div><h4>Claims</h4><pre>\(HTML.text(pretty(token.jwt.claims)))</pre></div></div>\n"
            out +=
                "<table class=\"rules\"><caption>Rules: \(HTML.escape(verdict))</caption>\n<thead><tr><th scope=\"col\">Result</th><th scope=\"col\">Rule</th><th scope=\"col\">Reason</th><th scope=\"col\">Source</th></tr></thead>\n<tbody>\n"
            for result in row.rules {
                out +=
                    "<tr class=\"level-\(result.level.name)\"><td>\(result.level.symbol) \(result.level.name)</td><th scope=\"row\">\(HTML.escape(result.rule.name))</th><td>\(HTML.text(result.reason))</td><td>\(HTML.escape(result.rule.source))</td></tr>\n"
            }
            out += "</tbody></table>\n</article>\n"
        }
        return out + "</section>\n"
    }

    /// The fetch log, every provider's, in order; cache hits folded as the pane folds them.
    static func log(_ digest: SessionDigest) -> String {
        var out = "<section aria-labelledby=\"log\"><h2 id=\"log\">Fetch log</h2>\n"
        out +=
            "<table class=\"log\"><caption>Every request, answer, ID switch and Fleet Engine call (times UTC)</caption>\n<thead><tr><th scope=\"col\">Time</th><th scope=\"col\">Provider</th><th scope=\"col\">ID</th><th scope=\"col\">Event</th><th scope=\"col\">Detail</th></tr></thead>\n<tbody>\n"
        for row in digest.log {
            out +=
                "<tr\(row.failed ? " class=\"failed\"" : "")><td>\(SessionDigest.clock(row.time))</td><td>\(HTML.escape(row.provider.rawValue))</td><td>\(HTML.text(row.id))</td><td>\(row.failed ? "✗ " : "")\(HTML.escape(row.event))</td><td>\(HTML.text(row.detail))</td></tr>\n"
        }
        return out + "</tbody></table>\n</section>\n"
    }

    static func pretty(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return value.description }
        return String(decoding: data, as: UTF8.self)
    }
}

extension HTMLReport {
    /// A tapped session's real IDs with the columns the dashboard's fleet table gave them at the
    /// end: what their devices did in the last hour, and the churn sentence or last error.
    static func tapped(_ digest: SessionDigest) -> String {
        guard !digest.tapped.isEmpty else { return "" }
        var out = "<section aria-labelledby=\"tapped\"><h2 id=\"tapped\">Tapped IDs</h2>\n"
        out +=
            "<p>What the tap saw of each real ID in the hour before the session's end, as the dashboard's fleet table showed it (churn first).</p>\n"
        for (kind, table) in digest.tapped {
            out +=
                "<table class=\"tapped\"><caption>\(HTML.escape(kind.spec.paneTitle)): \(table.rows.count) IDs</caption>\n<thead><tr><th scope=\"col\">ID</th><th scope=\"col\">Verdict</th><th scope=\"col\">Fetches/h</th><th scope=\"col\">Tokens</th><th scope=\"col\">Lifetime</th><th scope=\"col\">Churn or last error</th></tr></thead>\n<tbody>\n"
            for row in table.rows {
                guard let tap = row.tapped else { continue }
                let trouble = row.churn ?? row.lastError ?? ""
                let rowClass = row.churn != nil || tap.level == .trouble ? " class=\"failed\"" : ""
                out +=
                    "<tr\(rowClass)><th scope=\"row\">\(HTML.text(row.id))</th><td>\(HTML.escape(tap.verdict))</td><td>\(tap.fetches)</td><td>\(tap.tokens)</td><td>\(tap.lifetime.map(duration) ?? "–")</td><td>\(HTML.text(trouble))</td></tr>\n"
            }
            out += "</tbody></table>\n"
        }
        return out + "</section>\n"
    }
}
