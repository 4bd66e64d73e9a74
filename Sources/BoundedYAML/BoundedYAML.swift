import Foundation
import Yams

/// YAML from outside (config files, scenarios, themes), read with limits, so that no file can
/// hang or crash the reader: at most `maximumBytes`, UTF-8, nesting at most libyaml's own limit
/// (1,000 levels), and aliases expanding to at most `aliasBudget` nodes in all.
///
/// Yams 6.2.2 has no alias limit, and its event stream is private (`Parser.parse` and `Event`
/// are private; CYaml is not a product another package may import). So the budget is checked
/// on the text first: see `AliasBudget`. Only a text within it reaches `Yams.compose`, whose
/// duplicate-key check hashes every aliased node again, and so hung on a bomb used as a key.
public enum BoundedYAML {
    /// Config files, scenarios and themes are a few KiB; no real one comes near.
    public static let maximumBytes = 1 << 20
    /// Expanded nodes in all, aliases counted at their anchor's full size. A theme's palette
    /// or a profile's shared headers need a few hundred.
    public static let aliasBudget = 10_000

    static let tooLarge = "larger than \(maximumBytes >> 20) MiB"

    /// The file's text, reading no more than `maximumBytes` + 1 (`/dev/zero` ends too). Reasons
    /// read after "the file is": "not UTF-8 text", "larger than 1 MiB".
    public static func read(_ path: String) throws(YAMLProblem) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw YAMLProblem(
                line: nil, FileManager.default.fileExists(atPath: path) ? "unreadable (no permission?)" : "missing")
        }
        defer { try? handle.close() }
        let data: Data?
        do { data = try handle.read(upToCount: maximumBytes + 1) } catch {
            throw YAMLProblem(line: nil, "unreadable (a folder?)")
        }
        return try text(data ?? Data())
    }

    /// The text of `data`, or where it stops being UTF-8 (the line holding the first bad byte).
    public static func text(_ data: Data) throws(YAMLProblem) -> String {
        guard data.count <= maximumBytes else { throw YAMLProblem(line: nil, tooLarge) }
        if let text = String(data: data, encoding: .utf8) { return text }
        return try String(validating: data)
    }

    /// The document's root (nil for an empty text), or the first problem at its line.
    public static func compose(_ yaml: String) throws(YAMLProblem) -> Node? {
        guard yaml.utf8.count <= maximumBytes else { throw YAMLProblem(line: nil, "the text is \(tooLarge)") }
        try AliasBudget(limit: aliasBudget).check(yaml)
        do { return try Yams.compose(yaml: yaml) } catch let error as YamlError {
            throw problem(error)
        } catch {
            throw YAMLProblem(line: nil, "cannot read YAML: \(error)")
        }
    }

    /// Yams' error as one line; `rename` undoes a rewrite of the text in what it quotes.
    static func problem(_ error: YamlError, rename: (String) -> String = { $0 }) -> YAMLProblem {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return YAMLProblem(line: mark.line, "YAML syntax: \(rename(problem))")
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Yams marks the mapping holding them, not the second key.
            return YAMLProblem(
                line: context.mark.line,
                "\(duplicates.map(rename).sorted().joined(separator: ", ")) given twice in one mapping")
        case .reader(let problem, _, _, _):
            return YAMLProblem(line: nil, "YAML: \(problem)")
        default:
            return YAMLProblem(line: nil, "YAML: \(rename("\(error)"))")
        }
    }
}

extension String {
    /// The text of `data`, or the line of its first byte that is not UTF-8.
    fileprivate init(validating data: Data) throws(YAMLProblem) {
        var bytes = data.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        var line = 1
        while true {
            switch decoder.decode(&bytes) {
            case .scalarValue(let scalar):
                if scalar == "\n" { line += 1 }
                scalars.append(scalar)
            case .emptyInput:
                self = String(scalars)
                return
            case .error:
                throw YAMLProblem(line: line, "not UTF-8 text")
            }
        }
    }
}
