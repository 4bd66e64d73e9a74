import Foundation
import Testing

/// Every Markdown page rendered by a real GFM renderer (Debian's `cmark-gfm`, as GitHub renders
/// tables), and read for the three ways a page breaks without anyone seeing it in the source: a
/// table whose rows do not all land in it (a pipe row right after a paragraph line joins the
/// paragraph), a relative link or anchor that points nowhere, and a shell example naming a
/// `tokendash` subcommand or flag the argument parser does not have.
@Suite(.timeLimit(.minutes(15))) struct DocsRenderTests {
    static let root = BinaryRunner.packageRoot

    /// README.md, ARCHITECTURE.md, TESTING.md and every page under docs/, as paths from the root.
    static let pages: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appending(path: "docs").path)) ?? []
        return ["README.md", "ARCHITECTURE.md", "TESTING.md"]
            + docs.filter { $0.hasSuffix(".md") }.sorted().map {
                "docs/" + $0
            }
    }()

    struct MissingCmark: Error, CustomStringConvertible {
        var description: String {
            "cmark-gfm is not installed: `apt-get install cmark-gfm` (scripts/setup.sh does it)"
        }
    }

    /// The page as HTML, tables and autolinks on, as GitHub renders it.
    static func render(_ markdown: String) async throws -> String {
        guard let cmark = BackgroundProcess.find("cmark-gfm") else { throw MissingCmark() }
        let result = try await BinaryRunner.run(["-e", "table", "-e", "autolink"], executable: cmark, stdin: markdown)
        try #require(result.status == 0, "cmark-gfm failed: \(result.stderr)")
        return result.stdout
    }

    static func read(_ page: String) throws -> String {
        try String(contentsOf: root.appending(path: page), encoding: .utf8)
    }

    // MARK: Tables

    /// The rows each table should have, from the source: each run of lines starting with `|`
    /// outside code blocks, less its delimiter row.
    static func sourceTables(_ markdown: String) -> [Int] {
        var tables: [Int] = []
        var run = 0
        for block in MarkdownBlocks(markdown).lines {
            if !block.inCode && block.text.hasPrefix("|") {
                run += 1
            } else if run > 0 {
                tables.append(run - 1)
                run = 0
            }
        }
        if run > 0 { tables.append(run - 1) }
        return tables
    }

    /// The rows each rendered table has.
    static func renderedTables(_ html: String) -> [Int] {
        html.matches(of: /<table>[\s\S]*?<\/table>/).map { $0.output.matches(of: /<tr>/).count }
    }

    /// What is wrong with the page's tables, in words; empty when every row landed in its table.
    static func tableProblems(_ markdown: String, _ html: String) -> [String] {
        var problems: [String] = []
        let expected = sourceTables(markdown)
        let rendered = renderedTables(html)
        if expected != rendered {
            problems.append("tables' rows in the source \(expected), rendered \(rendered)")
        }
        for paragraph in html.matches(of: /<p>[\s\S]*?<\/p>/) where paragraph.output.contains("\n|") {
            problems.append("a table row rendered inside a paragraph: \(paragraph.output.prefix(160))")
        }
        return problems
    }

    @Test(arguments: pages) func everyTableRowLandsInItsTable(_ page: String) async throws {
        let markdown = try Self.read(page)
        let problems = Self.tableProblems(markdown, try await Self.render(markdown))
        #expect(problems == [], "\(page)")
    }

    /// The check fails on the README's old break: a paragraph between two rows of a table.
    @Test func aParagraphInsideATableIsCaught() async throws {
        let broken = """
            | command | what |
            |---|---|
            | `a` | one |

            A paragraph that splits the table.
            | `b` | two |
            """
        #expect(Self.tableProblems(broken, try await Self.render(broken)).count == 2)
        let whole = "| command | what |\n|---|---|\n| `a` | one |\n| `b` | two |\n"
        #expect(Self.tableProblems(whole, try await Self.render(whole)) == [])
    }

    // MARK: Links

    /// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as `-`,
    /// a repeated heading numbered `-1`, `-2`.
    static func anchors(_ markdown: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in MarkdownBlocks(markdown).lines where !line.inCode {
            guard let heading = line.text.firstMatch(of: /^#{1,6}\s+(.*?)\s*#*\s*$/) else { continue }
            let slug = String(
                String(heading.output.1).lowercased().unicodeScalars.filter {
                    CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_"
                }
            ).replacingOccurrences(of: " ", with: "-")
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// Each relative link of the rendered page that leads nowhere: a missing file, or an anchor
    /// that is no heading of its page.
    static func brokenLinks(page: String, html: String) throws -> [String] {
        let folder = root.appending(path: page).deletingLastPathComponent()
        var broken: [String] = []
        for match in html.matches(of: /href="([^"]*)"/) {
            let href = String(match.output.1).replacingOccurrences(of: "&amp;", with: "&")
            if href.contains("://") || href.hasPrefix("mailto:") { continue }
            let parts = href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let target = parts[0].isEmpty ? root.appending(path: page) : folder.appending(path: parts[0])
            guard FileManager.default.fileExists(atPath: target.path) else {
                broken.append("\(href): no file \(target.standardized.path)")
                continue
            }
            if parts.count == 2, target.pathExtension == "md" {
                let text = try String(contentsOf: target, encoding: .utf8)
                if !anchors(text).contains(parts[1]) { broken.append("\(href): no heading makes #\(parts[1])") }
            }
        }
        return broken
    }

    @Test(arguments: pages) func everyRelativeLinkLeadsSomewhere(_ page: String) async throws {
        let html = try await Self.render(try Self.read(page))
        #expect(try Self.brokenLinks(page: page, html: html) == [], "\(page)")
    }

    @Test func aLinkToNoHeadingIsCaught() async throws {
        let html = try await Self.render("[a](README.md#no-such-heading) [b](docs/nowhere.md) [c](#commands)")
        #expect(try Self.brokenLinks(page: "README.md", html: html).count == 2)
        #expect(
            Self.anchors("## Tokens in use: Fleet Engine's answers\n## `watch`\n## watch").sorted() == [
                "tokens-in-use-fleet-engines-answers", "watch", "watch-1",
            ])
    }

    // MARK: Shell examples

    /// Every `tokendash` command line in the page's sh, bash and console blocks, split into words
    /// (continuation lines joined, comments, prompts and what follows a pipe or redirection cut).
    static func commandLines(_ markdown: String) -> [(line: String, words: [String])] {
        var found: [(line: String, words: [String])] = []
        for block in MarkdownBlocks(markdown).codeBlocks where ["sh", "bash", "console"].contains(block.info) {
            let joined = block.body.replacingOccurrences(of: "\\\n", with: " ")
            for raw in joined.split(separator: "\n") {
                var line = String(raw)
                if block.info == "console" {
                    guard line.hasPrefix("$ ") else { continue }
                    line.removeFirst(2)
                }
                let words = ShellWords.split(line)
                for start in words.indices where words[start] == "tokendash" {
                    let command = words[(start + 1)...].prefix { !ShellWords.ends($0) }
                    found.append((line, Array(command)))
                }
            }
        }
        return found
    }

    /// What the parser does not know in one command line (its words after `tokendash`).
    static func unknownWords(_ words: [String], _ root: ParserCommand) -> [String] {
        // `tokendash help SUBCOMMAND` is the parser's own.
        if words.first == "help" { return [] }
        var command = root
        var rest = words[...]
        // Subcommands first (`scenario check`), then the default subcommand's flags.
        while let word = rest.first, let sub = command.subcommands.first(where: { $0.name == word }) {
            command = sub
            rest = rest.dropFirst()
        }
        if command === root, let first = rest.first, !first.hasPrefix("-"), command.positionals == 0 {
            let known = root.subcommands.map(\.name).joined(separator: ", ")
            return ["\(first): no such subcommand (known: \(known))"]
        }
        let flags = command.flags.union(command === root ? root.defaultFlags : []).union(["--help", "-h", "--version"])
        return rest.filter { $0.hasPrefix("-") && $0 != "-" }.compactMap { word in
            let name = String(word.prefix { $0 != "=" })
            return flags.contains(name) ? nil : "\(name) is not a flag of `tokendash \(command.path)`"
        }
    }

    static func parser() async throws -> ParserCommand {
        let result = try await BinaryRunner.run(["--experimental-dump-help"])
        try #require(result.status == 0, "tokendash --experimental-dump-help: \(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let command = try #require(json?["command"] as? [String: Any], "no command in the dump")
        return ParserCommand(command, path: "")
    }

    @Test func everyShellExampleNamesRealSubcommandsAndFlags() async throws {
        let parser = try await Self.parser()
        try #require(parser.subcommands.count >= 8 && parser.defaultFlags.contains("--trips"), "the dump was not read")
        var checked = 0
        for page in Self.pages {
            for (line, words) in Self.commandLines(try Self.read(page)) {
                checked += 1
                let unknown = Self.unknownWords(words, parser)
                #expect(unknown == [], "\(page): \(line)")
            }
        }
        // 40 when this was written; far fewer means the blocks were not read.
        #expect(checked >= 30, "only \(checked) tokendash command lines found in the docs' shell blocks")
    }

    @Test func aMadeUpFlagOrSubcommandIsCaught() async throws {
        let parser = try await Self.parser()
        let page = """
            ```sh
            tokendash watch --duration 5 --no-such-flag \\
                --trips 2   # fine
            tokendash scenaro list
            tokendash scenario check a.yaml --strict | tee out
            tokendash --trips 3 --theme light >/dev/null
            ```
            """
        let lines = Self.commandLines(page)
        #expect(lines.count == 4)
        #expect(lines.map { Self.unknownWords($0.words, parser).count } == [1, 1, 1, 0])
    }
}

/// One command of the argument parser's dump (`--experimental-dump-help`): its name, its flags and
/// options by every name they have, its subcommands, and the default subcommand's flags.
final class ParserCommand: Sendable {
    let name: String
    let path: String
    let flags: Set<String>
    let positionals: Int
    let subcommands: [ParserCommand]
    let defaultFlags: Set<String>

    init(_ json: [String: Any], path parent: String) {
        name = json["commandName"] as? String ?? ""
        path = parent.isEmpty ? (name == "tokendash" ? "" : name) : "\(parent) \(name)"
        let arguments = json["arguments"] as? [[String: Any]] ?? []
        flags = Set(
            arguments.flatMap { argument -> [String] in
                (argument["names"] as? [[String: Any]] ?? []).compactMap { name in
                    guard let text = name["name"] as? String else { return nil }
                    return (name["kind"] as? String) == "short" ? "-" + text : "--" + text
                }
            })
        positionals = arguments.filter { ($0["kind"] as? String) == "positional" }.count
        let path = self.path
        subcommands = (json["subcommands"] as? [[String: Any]] ?? []).map { ParserCommand($0, path: path) }
        let defaultName = json["defaultSubcommand"] as? String
        defaultFlags = subcommands.first { $0.name == defaultName }?.flags ?? []
    }
}

/// A Markdown page's lines, each knowing whether it is inside a fenced code block, and its fenced
/// blocks with their info string.
struct MarkdownBlocks {
    struct Line {
        var text: String
        var inCode: Bool
    }

    struct CodeBlock {
        var info: String
        var body: String
    }

    var lines: [Line] = []
    var codeBlocks: [CodeBlock] = []

    init(_ markdown: String) {
        var fence: String?
        var current: CodeBlock?
        for raw in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = String(raw)
            if let open = fence {
                if text.hasPrefix(open) && text.drop(while: { $0 == "`" || $0 == "~" }).allSatisfy(\.isWhitespace) {
                    fence = nil
                    if let block = current { codeBlocks.append(block) }
                    current = nil
                } else {
                    current?.body += text + "\n"
                }
                lines.append(Line(text: text, inCode: true))
            } else if let opening = text.firstMatch(of: /^(```+|~~~+)\s*([^\s`]*)/) {
                fence = String(opening.output.1)
                current = CodeBlock(info: String(opening.output.2), body: "")
                lines.append(Line(text: text, inCode: true))
            } else {
                lines.append(Line(text: text, inCode: false))
            }
        }
    }
}

/// Words of a shell line as the shell splits them, enough for examples: quotes kept together,
/// a `#` that starts a word ends the line.
enum ShellWords {
    static func split(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var started = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                started = true
            } else if character.isWhitespace {
                if started { words.append(word) }
                word = ""
                started = false
            } else if character == "#" && !started {
                break
            } else {
                word.append(character)
                started = true
            }
        }
        if started { words.append(word) }
        return words
    }

    /// A word after which the words no longer belong to the command: a pipe, a list operator, a redirection.
    static func ends(_ word: String) -> Bool {
        ["|", "||", "&&", ";", "&"].contains(word) || word.hasPrefix(">") || word.hasPrefix("2>")
            || word.hasPrefix("<") || word.hasPrefix("|")
    }
}
