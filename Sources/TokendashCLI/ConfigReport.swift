import ConfigFile
import Dashboard
import Foundation
import HTTPTransport
import HeadlessCommands
import KeyTable
import ProviderVocabulary
import Redaction

/// What `config check` prints: the file, the profile, then each setting with its value (URL
/// credentials and header values redacted) and where it came from: flag, profile, defaults or
/// built-in.
struct ConfigReport {
    let location: ConfigLocation
    let resolved: ResolvedConfig
    /// The options as parsed, to tell a flag given from a value filled in.
    let flags: BackendOptions
    let filled: BackendOptions

    var lines: [String] {
        var out = [
            resolved.file.map { "config file: \($0)" } ?? "config file: none at \(location.path) (built-in settings)"
        ]
        out.append("profile: " + (resolved.profile.map { "\($0) (\(resolved.profileChoice ?? ""))" } ?? "none"))
        var rows: [(String, String, String)] = []
        for field in BackendOptions.configFields {
            let source =
                field.isGiven(flags)
                ? "flag --\(field.setting.rawValue)" : resolved[field.setting].map { "\($0.source)" } ?? "built-in"
            var value = field.shown(filled) ?? "(unset)"
            if case .url = field.setting.kind { value = SecretRedactor.redact(value) }
            if field.setting == .proxy {
                rows += proxyRows(given: source)
                continue
            }
            rows.append((field.setting.rawValue, value, source))
        }
        for header in flags.configHeaders(resolved) {
            let from =
                header.template.variables.isEmpty
                ? "" : " (from " + header.template.variables.map { "$\($0)" }.joined(separator: ", ") + ")"
            rows.append(
                (
                    "header", "\(header.name): <redacted>\(from)",
                    "profile \(resolved.profile ?? "") (line \(header.line))"
                ))
        }
        for header in flags.backendFlags.headers.compactMap(HTTPHeader.init(parsing:)) {
            rows.append(("header", "\(header.name): <redacted>", "flag --header"))
        }
        rows.append(
            ("theme", resolved.text(.theme) ?? "default", resolved[.theme].map { "\($0.source)" } ?? "built-in"))
        if resolved.remaps.isEmpty { rows.append(("keys", "as built in", "built-in")) }
        for remap in resolved.remaps {
            rows.append(
                (
                    "keys", "\(remap.command.rawValue): " + remap.keys.map(\.displayName).joined(separator: " "),
                    "line \(remap.line)"
                ))
        }
        let nameWidth = rows.map(\.0.count).max() ?? 0
        let valueWidth = min(60, rows.map(\.1.count).max() ?? 0)
        for (name, value, source) in rows {
            out.append(
                name.padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0)
                    + value.padding(toLength: max(valueWidth, value.count) + 2, withPad: " ", startingAt: 0) + source)
        }
        return out
    }

    /// The proxy in effect and where it came from: `--no-proxy`, `--proxy` or the profile, or the
    /// environment's variables (which no other setting reads), then the hosts that go direct.
    private func proxyRows(given source: String) -> [(String, String, String)] {
        let environment = ProcessInfo.processInfo.environment
        guard let settings = try? filled.proxySettings(environment: environment) else {
            return [("proxy", "(unusable)", source)]
        }
        var rows: [(String, String, String)]
        if filled.transport.noProxy {
            rows = [("proxy", "none", "flag --no-proxy")]
        } else if filled.transport.proxy != nil {
            rows = [("proxy", settings.display ?? "none", source)]
        } else {
            rows = [
                (
                    "proxy", settings.display ?? "none",
                    settings.isDirect ? "built-in (no proxy variable set)" : settings.source
                )
            ]
        }
        if !settings.isDirect, !settings.noProxy.text.isEmpty {
            let name = (environment["no_proxy"] ?? "").isEmpty ? "NO_PROXY" : "no_proxy"
            rows.append(("no-proxy", settings.noProxy.text, "environment \(name)"))
        }
        if !settings.isDirect {
            rows.append(
                settings.tunnelsHTTP
                    ? ("proxy-http", "CONNECT", "flag --proxy-tunnel")
                    : ("proxy-http", "absolute form", "built-in (as curl)"))
        }
        return rows
    }
}
