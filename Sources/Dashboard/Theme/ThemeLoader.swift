import BoundedYAML
import Foundation
import UICore
import Yams

/// Reads the YAML theme format:
///
///     palette: { accent: &accent cyan }     # free-form, for anchors
///     body: { fg: default, bg: default }
///     frame: { border: { fg: 8 }, focused: { fg: *accent, bold: true }, title: ... }
///     status: { ok: ..., warning: ..., error: ... }
///     countdown: { fresh, margin, critical, empty }
///     log: { info, hit, warning, error }
///     keys: { hint, label }
///     header, dim, overlay, selected
///
/// A style is a mapping of `fg`, `bg`, `bold`, `reverse`, `underline`, or just a colour (the foreground).
public enum ThemeLoader {
    /// The built-in themes' names.
    public static var builtinNames: [String] { BuiltinThemes.sources.keys.sorted() }

    /// The built-in theme called `name`; nil when there is none.
    public static func builtin(_ name: String) throws(FileProblem) -> Theme? {
        guard let source = BuiltinThemes.sources[name] else { return nil }
        return try parse(source, name: name, file: "built-in theme \(name)")
    }

    static let groups: Set<String> = Set(
        Theme.keys.keys.compactMap { $0.split(separator: ".").count == 2 ? String($0.split(separator: ".")[0]) : nil })

    public static func parse(_ yaml: String, name: String, file: String) throws(FileProblem) -> Theme {
        let root: Node?
        do { root = try BoundedYAML.compose(yaml) } catch { throw FileProblem(file: file, error) }
        guard let root, let mapping = root.mapping else {
            throw FileProblem(
                file: file, line: root?.mark?.line ?? 1, "a theme is a mapping of keys such as frame: and status:")
        }
        var styles: [StyleRole: ThemeStyle] = [:]
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let line = keyNode.mark?.line
            if key == "palette" || key == "name" { continue }
            if let role = Theme.keys[key] {
                styles[role] = try style(value, key: key, file: file)
            } else if groups.contains(key) {
                guard let group = value.mapping else {
                    throw FileProblem(file: file, line: line, "\"\(key)\" must be a mapping of styles")
                }
                for (subNode, subValue) in group {
                    let path = "\(key).\(subNode.string ?? "")"
                    guard let role = Theme.keys[path] else {
                        throw FileProblem(
                            file: file, line: subNode.mark?.line, "unknown key \"\(path)\"; known: \(knownKeys)")
                    }
                    styles[role] = try style(subValue, key: path, file: file)
                }
            } else {
                throw FileProblem(file: file, line: line, "unknown key \"\(key)\"; known: \(knownKeys)")
            }
        }
        return Theme(name: name, styles: styles)
    }

    static var knownKeys: String { (["palette"] + Theme.keys.keys.sorted()).joined(separator: ", ") }

    private static func style(_ node: Node, key: String, file: String) throws(FileProblem) -> ThemeStyle {
        if node.mapping == nil {
            return ThemeStyle(foreground: try color(node, key: key, file: file))
        }
        var style = ThemeStyle()
        for (attributeNode, value) in node.mapping ?? [:] {
            let attribute = attributeNode.string ?? ""
            switch attribute {
            case "fg": style.foreground = try color(value, key: "\(key).fg", file: file)
            case "bg": style.background = try color(value, key: "\(key).bg", file: file)
            case "bold": style.bold = try flag(value, key: "\(key).bold", file: file)
            case "reverse": style.reverse = try flag(value, key: "\(key).reverse", file: file)
            case "underline": style.underline = try flag(value, key: "\(key).underline", file: file)
            default:
                throw FileProblem(
                    file: file, line: attributeNode.mark?.line,
                    "unknown attribute \"\(attribute)\" in \(key); use fg, bg, bold, reverse, underline")
            }
        }
        return style
    }

    private static func color(_ node: Node, key: String, file: String) throws(FileProblem) -> ThemeColor {
        guard let text = node.scalar?.string, let color = ThemeColor(parsing: text) else {
            throw FileProblem(
                file: file, line: node.mark?.line,
                "\(key): \"\(node.scalar?.string ?? "a mapping")\" is not a colour (a name, 0-255, #rrggbb or default)")
        }
        return color
    }

    private static func flag(_ node: Node, key: String, file: String) throws(FileProblem) -> Bool {
        guard let value = node.bool else {
            throw FileProblem(file: file, line: node.mark?.line, "\(key) must be true or false")
        }
        return value
    }
}
