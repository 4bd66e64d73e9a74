import Foundation
import Testing
import UICore

/// Whole frames, text and styles, compared with files: a change anywhere on the screen shows up
/// as a diff to review. `UPDATE_GOLDEN=1 swift test --filter …` writes the files anew; review
/// them with `git diff` before committing. Shared by the dashboard's frames and the tap's replayed
/// ones, which need the tap and the recording the dashboard's tests cannot import.
public enum GoldenFrame {
    /// One letter per role in the styles half of a golden file.
    public static let roleLetters: [StyleRole: Character] = [
        .text: " ", .dim: ".", .header: "H", .border: "b", .borderFocused: "B", .title: "T",
        .ok: "o", .warning: "w", .error: "e",
        .gaugeFresh: "g", .gaugeMargin: "m", .gaugeCritical: "c", .gaugeEmpty: "_",
        .logInfo: "i", .logHit: "h", .logWarning: "W", .logError: "E",
        .keyHint: "k", .keyLabel: "K", .overlay: "O", .selected: "S",
    ]

    /// The frame as a golden file holds it: its size, each line of text, then each line's roles.
    public static func text(_ canvas: Canvas) -> String {
        var out = "\(canvas.width)x\(canvas.height)\n"
        for y in 0..<canvas.height {
            var scalars = String.UnicodeScalarView()
            for x in 0..<canvas.width { scalars.append(canvas[x, y].scalar) }
            out += "|" + String(scalars) + "|\n"
        }
        out +=
            "styles (" + StyleRole.allCases.map { "\(roleLetters[$0] ?? "?")=\($0.rawValue)" }.joined(separator: " ")
            + ")\n"
        for y in 0..<canvas.height {
            out += "|" + String((0..<canvas.width).map { roleLetters[canvas[$0, y].role] ?? "?" }) + "|\n"
        }
        return out
    }

    /// Records an issue unless `canvas` is the file `name-WxH.txt` in `folder` (written instead
    /// under `UPDATE_GOLDEN=1`).
    public static func check(
        _ canvas: Canvas, name: String, in folder: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let actual = text(canvas)
        let file = folder.appendingPathComponent("\(name)-\(canvas.width)x\(canvas.height).txt")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: file)
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record(
                "no golden file \(file.lastPathComponent); run with UPDATE_GOLDEN=1 and review it",
                sourceLocation: sourceLocation)
            return
        }
        guard actual != expected else { return }
        // The first differing line, so the failure says where without a 100-line dump.
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let line = zip(a, e).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, e.count)
        Issue.record(
            """
            \(file.lastPathComponent) differs at line \(line + 1):
            expected: \(line < e.count ? String(e[line]) : "<end>")
            actual:   \(line < a.count ? String(a[line]) : "<end>")
            """, sourceLocation: sourceLocation)
    }
}
