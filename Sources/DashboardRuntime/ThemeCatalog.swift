import BoundedYAML
import Dashboard
import Foundation
import UICore

/// The themes a user can pick: the four built in, plus `*.yaml` in the theme folders, which
/// override a built-in of the same name. The file side of themes, kept at the edge: the
/// dashboard only parses text (`ThemeLoader`).
public struct ThemeCatalog: Sendable {
    public let directories: [URL]

    public init(directories: [URL]) { self.directories = directories }

    /// `--themes-dir`, then `$TOKENDASH_THEMES`, then `Themes/` in the current folder and above the binary.
    public static func standard(explicit: String?, environment: [String: String], executable: String) -> ThemeCatalog {
        var dirs: [URL] = []
        if let explicit { dirs.append(URL(fileURLWithPath: explicit)) }
        if let env = environment["TOKENDASH_THEMES"], !env.isEmpty { dirs.append(URL(fileURLWithPath: env)) }
        dirs.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Themes"))
        // `swift run` puts the binary in .build/<triple>/debug; the package's Themes/ is a few levels up.
        var folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            dirs.append(folder.appendingPathComponent("Themes"))
            folder.deleteLastPathComponent()
        }
        var seen = Set<String>()
        return ThemeCatalog(directories: dirs.filter { seen.insert($0.standardizedFileURL.path).inserted })
    }

    /// The theme to start with: the one asked for with `--theme`, which wins over `NO_COLOR`
    /// (https://no-color.org: "user-level configuration ... should override it"); else `mono`
    /// when `NO_COLOR` is set; else `default`.
    public static func initialThemeName(requested: String?, environment: [String: String]) -> String {
        if let requested { return requested }
        return noColor(requested: requested, environment: environment) ? "mono" : "default"
    }

    /// Whether the terminal's colours stay off: `NO_COLOR` is set and no theme was asked for.
    public static func noColor(requested: String?, environment: [String: String]) -> Bool {
        requested == nil && !(environment["NO_COLOR"] ?? "").isEmpty
    }

    /// Every theme name available, sorted.
    public var names: [String] {
        var all = Set(ThemeLoader.builtinNames)
        for dir in directories {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for f in files where f.hasSuffix(".yaml") || f.hasSuffix(".yml") {
                all.insert(String(f.prefix(upTo: f.lastIndex(of: ".") ?? f.endIndex)))
            }
        }
        return all.sorted()
    }

    /// The theme called `name`: the first file found, else the built-in.
    public func load(_ name: String) throws(FileProblem) -> Theme {
        for dir in directories {
            for ext in ["yaml", "yml"] {
                let url = dir.appendingPathComponent("\(name).\(ext)")
                guard FileManager.default.fileExists(atPath: url.path) else { continue }
                let text: String
                do { text = try BoundedYAML.read(url.path) } catch {
                    throw FileProblem(file: url.path, error, lead: "the file is ")
                }
                return try ThemeLoader.parse(text, name: name, file: url.path)
            }
        }
        if let theme = try ThemeLoader.builtin(name) { return theme }
        throw FileProblem(file: name, line: nil, "unknown theme; available: \(names.joined(separator: ", "))")
    }
}
