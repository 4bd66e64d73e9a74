import BoundedYAML
import Foundation
import KeyTable
import ProviderVocabulary
import Settings
import UICore
import Yams

/// The config file as read: named profiles, defaults, the profile used when none is named, and
/// key remaps. Every value is checked here, so a mistake is one `file:line: reason` before
/// anything starts. Environment variables in headers are read only when a profile is resolved:
/// a profile not used may name a variable this shell does not set.
public struct ConfigFile: Equatable, Sendable {
    public static let topLevelKeys = ["default-profile", "defaults", "profiles", "keys"]

    public var path: String
    public var defaults: [Setting: ConfigEntry] = [:]
    /// In the file's order, so errors and `config check` list them as written.
    public var profiles: [ConfigProfile] = []
    /// `default-profile:`, used when no `--profile` is given.
    public var defaultProfile: DefaultProfile?
    /// The table the remaps make; `.standard` when the file remaps nothing.
    public var keys: KeyMap = .standard
    /// The remaps as written, for `config check`.
    public var remaps: [KeyRemap] = []

    public struct DefaultProfile: Equatable, Sendable {
        public var name: String
        public var line: Int
    }

    public struct KeyRemap: Equatable, Sendable {
        public var command: Command
        public var keys: [Key]
        public var line: Int
    }

    /// Reads `location`; nil when there is no file at the default place.
    public static func load(_ location: ConfigLocation) throws(FileProblem) -> ConfigFile? {
        let exists = FileManager.default.fileExists(atPath: location.path)
        if !exists {
            if location.explicit { throw FileProblem(file: location.path, line: nil, "no such config file") }
            return nil
        }
        // A file handle, not String(contentsOfFile:): `--config /dev/null` (no config) must read as empty.
        guard let handle = FileHandle(forReadingAtPath: location.path) else {
            throw FileProblem(file: location.path, line: nil, "cannot read the config file (no permission?)")
        }
        defer { try? handle.close() }
        let data: Data?
        do { data = try handle.read(upToCount: BoundedYAML.maximumBytes + 1) } catch {
            throw FileProblem(file: location.path, line: nil, "cannot read the config file (a folder?)")
        }
        let text: String
        do { text = try BoundedYAML.text(data ?? Data()) } catch {
            throw FileProblem(file: location.path, error, lead: "the config file is ")
        }
        return try ConfigFile(yaml: text, path: location.path)
    }

    public init(yaml: String, path: String) throws(FileProblem) {
        self.path = path
        let root: Node?
        do { root = try BoundedYAML.compose(yaml) } catch { throw FileProblem(file: path, error) }
        guard let root else { return }  // An empty file: nothing configured.
        let reader = ConfigReader(file: path, directory: (path as NSString).deletingLastPathComponent)
        for (key, value) in try reader.mapping(root, what: "the config file", known: Self.topLevelKeys) {
            switch key.text {
            case "default-profile":
                defaultProfile = DefaultProfile(name: try reader.scalar(value, key: key.text), line: key.line)
            case "defaults":
                defaults = try reader.settings(
                    value, section: "defaults", allowed: Setting.inConfigFile.filter(\.allowedInDefaults))
            case "profiles":
                for (name, body) in try reader.mapping(value, what: "profiles", known: nil) {
                    profiles.append(
                        ConfigProfile(
                            name: name.text, line: name.line,
                            settings: try reader.settings(
                                body, section: "profile \(name.text)", allowed: Setting.inConfigFile)))
                }
            default:
                (keys, remaps) = try reader.keyMap(value)
            }
        }
        if let wanted = defaultProfile, !profiles.contains(where: { $0.name == wanted.name }) {
            throw FileProblem(
                file: path, line: wanted.line, "default-profile \(wanted.name) is not a profile; \(knownProfiles)")
        }
    }

    /// "known: a, b", or that there are none.
    public var knownProfiles: String {
        profiles.isEmpty ? "the file has no profiles" : "known: " + profiles.map(\.name).joined(separator: ", ")
    }
}
