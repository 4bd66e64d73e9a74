import Dashboard
import Foundation
import ProviderVocabulary

/// The session's timeline as inline SVG, with the dashboard's lanes for each provider kind
/// (tokens held, requests, Fleet Engine calls) and the marks across them. Shape carries the
/// meaning as well as colour (a dot succeeded, a cross failed), each item has a `<title>`, and
/// the picture as a whole a title and a description a screen reader reads.
enum TimelineSVG {
    static let width = 1000.0
    static let left = 200.0
    static let right = 20.0
    static let laneHeight = 26.0
    static let top = 34.0

    static func make(_ digest: SessionDigest) -> String {
        let lanes = digest.kinds.flatMap { kind in
            [("tokens", kind), ("requests", kind), ("Fleet Engine", kind)]
        }
        let height = top + Double(lanes.count) * laneHeight + 24
        let span = max(1, digest.end.timeIntervalSince(digest.start))
        let plot = width - left - right
        func x(_ date: Date) -> String {
            let fraction = min(1, max(0, date.timeIntervalSince(digest.start) / span))
            return String(format: "%.1f", left + fraction * plot)
        }
        func y(_ lane: Int) -> Double { top + Double(lane) * laneHeight }
        let failures = digest.requests.filter { !$0.ok }.count + digest.calls.filter { !$0.ok }.count
        var svg = """
            <svg class="timeline" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-labelledby="timeline-title timeline-desc" xmlns="http://www.w3.org/2000/svg">
            <title id="timeline-title">Timeline of the session, \(HTML.escape(SessionDigest.clock(digest.start))) to \(HTML.escape(SessionDigest.clock(digest.end)))</title>
            <desc id="timeline-desc">\(digest.spans.count) tokens held, \(digest.requests.count) requests answered, \(digest.calls.count) Fleet Engine calls, \(failures) of them failed (drawn as crosses; successes as dots), and \(digest.marks.count) marks (dashed lines, numbered). The tables below hold the same facts.</desc>

            """
        for (i, lane) in lanes.enumerated() {
            let mid = y(i) + laneHeight / 2
            svg +=
                "<text class=\"lane\" x=\"8\" y=\"\(mid + 4)\">\(HTML.escape(lane.1.rawValue)): \(HTML.escape(lane.0))</text>"
            svg += "<line class=\"rule\" x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(mid)\" y2=\"\(mid)\"/>\n"
            let items: [SessionDigest.LaneItem] =
                switch lane.0 {
                case "tokens": digest.spans
                case "requests": digest.requests
                default: digest.calls
                }
            for item in items where item.provider == lane.1 {
                let title = "<title>\(HTML.escape(SessionDigest.clock(item.from))) \(HTML.text(item.label))</title>"
                if lane.0 == "tokens" {
                    let x0 = Double(x(item.from)) ?? left
                    let x1 = Double(x(item.to)) ?? left
                    svg +=
                        "<rect class=\"span\" x=\"\(x(item.from))\" y=\"\(mid - 6)\" width=\"\(String(format: "%.1f", max(2, x1 - x0)))\" height=\"12\">\(title)</rect>\n"
                } else if item.ok {
                    svg += "<circle class=\"ok\" cx=\"\(x(item.from))\" cy=\"\(mid)\" r=\"4\">\(title)</circle>\n"
                } else {
                    let cx = Double(x(item.from)) ?? left
                    let d = String(
                        format: "M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f", cx - 5, mid - 5, cx + 5, mid + 5, cx - 5,
                        mid + 5, cx + 5, mid - 5)
                    svg += "<path class=\"bad\" d=\"\(d)\">\(title)</path>\n"
                }
            }
        }
        let bottom = y(lanes.count)
        for moment in digest.marks {
            let mark = moment.mark
            let note = mark.note.map { ": " + $0 } ?? ""
            svg +=
                "<g class=\"mark\"><title>mark \(mark.number) at \(SessionDigest.clock(mark.at))\(HTML.text(note))</title>"
            svg += "<line x1=\"\(x(mark.at))\" x2=\"\(x(mark.at))\" y1=\"\(top - 10)\" y2=\"\(bottom)\"/>"
            svg += "<text x=\"\(x(mark.at))\" y=\"\(top - 14)\" text-anchor=\"middle\">\(mark.number)</text></g>\n"
        }
        svg += "<text class=\"axis\" x=\"\(left)\" y=\"\(bottom + 16)\">\(SessionDigest.clock(digest.start))</text>"
        svg +=
            "<text class=\"axis\" x=\"\(width - right)\" y=\"\(bottom + 16)\" text-anchor=\"end\">\(SessionDigest.clock(digest.end))</text>\n"
        return svg + "</svg>"
    }
}
