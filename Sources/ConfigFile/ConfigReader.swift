import BoundedYAML
import Foundation
import KeyTable
import ProviderVocabulary
import Redaction
import Settings
import UICore
import Yams

/// Reads the config file's nodes into checked values, each mistake a `FileProblem` at its line.
struct ConfigReader {
    let file: String
    /// Relative `cacert:` and `jwks:` paths are read from the config file's folder, so a
    /// profile works whatever folder tokendash is started in.
    let directory: String

    struct Label {
        var text: String
        var line: Int
    }

    func error(_ node: Node, _ reason: String) -> FileProblem { FileProblem(file: file, line: node.mark?.line, reason) }

    /// A mapping's keys and values; a key not in `known` (when given) is an error naming the known ones.
    func mapping(_ node: Node, what: String, known: [String]?) throws(FileProblem) -> [(key: Label, value: Node)] {
        guard let mapping = node.mapping else { throw error(node, "\(what) must be a mapping of keys to values") }
        var out: [(key: Label, value: Node)] = []
        for (keyNode, value) in mapping {
            guard let text = keyNode.scalar?.string else {
                throw error(keyNode, "a key in \(what) must be a plain name")
            }
            if let known, !known.contains(text) {
                throw error(keyNode, "unknown key \"\(text)\" in \(what); known: \(known.joined(separator: ", "))")
            }
            out.append((Label(text: text, line: keyNode.mark?.line ?? 0), value))
        }
        return out
    }

    func scalar(_ node: Node, key: String) throws(FileProblem) -> String {
        guard let text = node.scalar?.string else {
            throw error(node, "\(key) must be a single value, not a list or mapping")
        }
        guard !text.isEmpty else { throw error(node, "\(key) must not be empty") }
        return text
    }

    func settings(_ node: Node, section: String, allowed: [Setting]) throws(FileProblem) -> [Setting: ConfigEntry] {
        var out: [Setting: ConfigEntry] = [:]
        for (key, value) in try mapping(node, what: section, known: allowed.map(\.rawValue)) {
            guard let setting = Setting(rawValue: key.text) else { continue }  // `mapping` checked it
            out[setting] = ConfigEntry(value: try self.value(value, setting), line: key.line)
        }
        return out
    }

    private func value(_ node: Node, _ setting: Setting) throws(FileProblem) -> SettingValue {
        let name = setting.rawValue
        if case .headers = setting.kind { return .headers(try headers(node)) }
        let text = try scalar(node, key: name)
        switch setting.kind {
        case .text, .headers: break
        case .choice(let choices):
            guard choices.contains(text) else {
                throw error(node, "\(name) must be one of \(choices.joined(separator: ", ")); got \(text)")
            }
        case .url:
            // As the flag checks it: a template's braces aside, an http(s) URL with a host.
            let bare = text.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")
            guard let url = URL(string: bare), let scheme = url.scheme,
                ["http", "https"].contains(scheme.lowercased()), url.host != nil
            else {
                throw error(node, "\(name) must be an http(s) URL, got \(SecretRedactor.redact(text))")
            }
        case .file:
            return .text(try readableFile(text, node, name))
        case .keySet:
            let lower = text.lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") { break }
            return .text(try readableFile(text, node, name))
        case .seconds, .count:
            // The flag's own rule, from the settings table.
            if let refusal = setting.refusal(text: text) { throw error(node, "\(name) \(refusal)") }
        }
        return .text(text)
    }

    /// `~/` and relative paths made absolute; the file must be readable now.
    private func readableFile(_ text: String, _ node: Node, _ name: String) throws(FileProblem) -> String {
        let expanded = (text as NSString).expandingTildeInPath
        let path = expanded.hasPrefix("/") ? expanded : (directory.isEmpty ? expanded : directory + "/" + expanded)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw error(node, "\(name): cannot read \(path)")
        }
        return path
    }

    /// `headers:` is a mapping of header names to values; values may read `${VARIABLES}`.
    private func headers(_ node: Node) throws(FileProblem) -> [ConfigHeader] {
        var out: [ConfigHeader] = []
        for (key, value) in try mapping(node, what: "headers", known: nil) {
            guard !key.text.isEmpty, !key.text.contains(where: { $0 == " " || $0 == ":" }) else {
                throw error(value, "header name \"\(key.text)\" must not be empty or hold a space or colon")
            }
            // An empty value is allowed: some backends want a header present but blank.
            guard let text = value.scalar?.string else {
                throw error(value, "header \(key.text) must be a single value")
            }
            let template = HeaderTemplate(text)
            do { _ = try template.expand([:]) } catch .badDollar {
                throw error(value, "header \(key.text): write ${NAME} to read an environment variable, or $$ for a $")
            } catch {}
            out.append(ConfigHeader(name: key.text, template: template, value: "", line: key.line))
        }
        return out
    }

    /// `keys:` maps command names to a key or a list of keys.
    func keyMap(_ node: Node) throws(FileProblem) -> (KeyMap, [ConfigFile.KeyRemap]) {
        var remaps: [ConfigFile.KeyRemap] = []
        for (key, value) in try mapping(node, what: "keys", known: Command.allCases.map(\.rawValue)) {
            guard let command = Command(rawValue: key.text) else { continue }
            let names: [Node] = value.sequence.map(Array.init) ?? [value]
            var keys: [UICore.Key] = []
            for name in names {
                let text = try scalar(name, key: key.text)
                guard let parsed = UICore.Key(name: text) else {
                    throw error(
                        name,
                        "unknown key \"\(text)\" for \(key.text); use one character, or one of \(UICore.Key.namedKeys.keys.sorted().joined(separator: ", "))"
                    )
                }
                keys.append(parsed)
            }
            remaps.append(ConfigFile.KeyRemap(command: command, keys: keys, line: key.line))
        }
        do {
            let table = try KeyMap(remapping: Dictionary(remaps.map { ($0.command, $0.keys) }) { $1 })
            return (table, remaps)
        } catch {
            let line: Int? =
                switch error {
                case .conflict(_, let remapped, _): remaps.first { $0.command == remapped }?.line
                case .noKeys(let command): remaps.first { $0.command == command }?.line
                }
            throw FileProblem(file: file, line: line, error.description)
        }
    }
}
