import Foundation
import HTTPTransport
import ProviderEvents
import ProviderHost
import ProviderProxy
import ProviderVocabulary
import ProxyKit
import Redaction
import TokenProviders
import TokenServer

/// The customer's provider classes of a session (`--driver-source`, `--consumer-source`): each
/// file read, its placeholders filled, built (or taken from the cache) and ready to start.
package struct SourceProviderSetup: Sendable {
    package enum Prepared: Sendable {
        case ready(HostLaunch, label: String)
        /// The file was refused or did not build: the lines to print, `file:line:col: error: …`.
        case failed([String], label: String)
    }

    package let prepared: [ProviderKind.Role: Prepared]
    package let settings: [ProviderKind.Role: SourceSettings]
    /// What was filled in each file, in words, for stderr and the log.
    package let notes: [String]
    /// The loopback proxy each built class's host sends its requests through, by kind.
    package let proxies: [ProviderKind: ProviderProxy]

    /// The pane titles' labels.
    package var labels: [ProviderKind.Role: String] {
        prepared.mapValues { prepared -> String in
            switch prepared {
            case .ready(_, let label), .failed(_, let label): label
            }
        }
    }

    /// The files refused or not built, every error line of each.
    package var failures: [String] {
        prepared.values.flatMap { prepared -> [String] in
            switch prepared {
            case .ready: []
            case .failed(let lines, _): lines
            }
        }
    }

    /// Starts the loopback proxy of a kind's host.
    package typealias ProxyStarter = @Sendable (ProviderKind) async throws -> ProviderProxy

    /// `upstream`: the user's proxy settings, which the loopback proxies' own connections honour.
    /// `startProxy` (tests) replaces `ProviderProxy.start` with those settings. When a proxy fails
    /// to start, those already started are stopped before the error goes up: nothing else holds them.
    package static func prepare(
        _ options: SessionConfiguration, server: EmbeddedTokenServer?, solution: ProviderKind.Solution,
        events: EventBroadcaster, upstream: ProxySettings, startProxy: ProxyStarter? = nil
    ) async throws -> SourceProviderSetup {
        let startProxy =
            startProxy ?? { kind in try await ProviderProxy.start(kind: kind, upstream: upstream, events: events) }
        var prepared: [ProviderKind.Role: Prepared] = [:]
        var settings: [ProviderKind.Role: SourceSettings] = [:]
        var notes: [String] = []
        var proxies: [ProviderKind: ProviderProxy] = [:]
        for role in ProviderKind.Role.allCases {
            guard let chosen = options.sources[role], let path = chosen.paths.first else { continue }
            let (paths, className) = (chosen.paths, chosen.className)
            let kind = solution.kind(role)
            let jvm = ProviderSourceFile.Language(path: path)?.isJVM == true
            // A JVM's calls come on one thread and no race is looked for: the title says so before
            // the file's name, so a narrow pane cuts the name, not that.
            let label =
                (jvm ? "your code (JVM, no race check): " : "your code: ")
                + (path as NSString).lastPathComponent
                + (paths.count > 1 ? " and \(paths.count - 1) more file\(paths.count > 2 ? "s" : "")" : "")
            let url = await server?.sessionURL(kind) ?? "INSERT_YOUR_TOKEN_PROVIDER_URL"
            let proxy: ProviderProxy
            do { proxy = try await startProxy(kind) } catch {
                for started in proxies.values { await started.stop() }
                throw error
            }
            proxies[kind] = proxy
            do throws(SourceProblem) {
                let source = try ProviderSourceFile.read(paths, role: role, className: className, providerURL: url)
                for filling in source.fillings {
                    notes.append(
                        "\(filling.file.isEmpty ? source.fileName : filling.file):\(filling.line): filled \(filling.placeholder) with \(SecretRedactor.redact(filling.value))"
                    )
                }
                do throws(BuildProblem) {
                    // An Objective-C class is built with the runtime's clang; swiftc is not needed for it.
                    let swiftc =
                        source.language == .swift
                        ? try HostBuilder.findSwiftc(given: options.swiftc) : options.swiftc ?? ""
                    let builder = HostBuilder(
                        swiftc: swiftc, sanitize: !options.noSanitize, cacheRoot: HostBuilder.defaultCacheRoot())
                    let built = try await builder.build(source)
                    let launch = HostLaunch(
                        executable: built.executable, fileName: (built.copiedSource as NSString).lastPathComponent,
                        sourceText: source.buildText,
                        environment: hostEnvironment(proxy: proxy.url).merging(built.environment) { $1 },
                        sources: built.sources)
                    // The title says the copy run is not the file as it stands; stderr and the README say what was filled.
                    prepared[role] = .ready(
                        launch, label: label + (source.fillings.isEmpty ? "" : ", placeholders filled"))
                    notes.append(
                        "\(source.fileName): "
                            + Self.builtNote(source, cached: built.cached, sanitize: !options.noSanitize))
                } catch {
                    prepared[role] = .failed(error.description.split(separator: "\n").map(String.init), label: label)
                }
            } catch {
                prepared[role] = .failed([error.description], label: label)
            }
            // An Android factory is called on the SDK's one thread, one call at a time: no second caller to race with.
            var setting = SourceSettings(
                completionTimeout: options.completionTimeout, parallelCalls: options.noSanitize || jvm ? 1 : 2,
                providerID: options.providerID, lifetimeChosen: server != nil,
                announce: { [server] id in
                    server?.setSessionID(id, for: kind)
                    proxy.announce(id)
                }, backendExpiry: { proxy.backendExpiry() })
            if jvm {
                setting.contract = .synchronousReturn
                setting.locationUpdateInterval = options.updateInterval
            }
            settings[role] = setting
        }
        return SourceProviderSetup(prepared: prepared, settings: settings, notes: notes, proxies: proxies)
    }

    /// The host's environment: ours, with the runtime's backtrace off (a crash's last lines are
    /// its message, not a page of frames), ThreadSanitizer reporting every race and carrying on
    /// (and taking no order from the host's pipes, which the SDK's threads do not share), and
    /// every request sent to tokendash's proxy at `proxy`, loopback included (libcurl, under
    /// Linux's URLSession, reads these names); the user's own proxy and `no_proxy` are the
    /// loopback proxy's to honour.
    package static func hostEnvironment(proxy: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment["TSAN_OPTIONS"] = "halt_on_error=0:report_signal_unsafe=0:io_sync=0"
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"] { environment[name] = proxy }
        for name in ["no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY"] { environment[name] = nil }
        return environment
    }

    /// The provider of `role`'s side: the customer's class in its host, or one failing with why it could not be.
    package func provider<Context: AuthorizationContext>(_: Context.Type, events: EventBroadcaster)
        -> ChosenTokenProvider<
            Context
        >?
    {
        guard let prepared = prepared[Context.kind.role], let settings = settings[Context.kind.role] else { return nil }
        switch prepared {
        case .ready(let launch, _):
            return .external(SourceTokenProvider<Context>(launch: launch, settings: settings, events: events))
        case .failed(let lines, _):
            return .external(
                UnbuiltSourceProvider<Context>(
                    problem: lines.first.map(Self.paneWording) ?? "your provider did not build", events: events))
        }
    }
}

extension SourceProviderSetup {
    /// What the build made of the class, for stderr and the log; a JVM's says that no race check runs.
    package static func builtNote(_ source: ProviderSourceFile, cached: Bool, sanitize: Bool) -> String {
        let how = cached ? "from the build cache" : "built"
        switch source.language {
        case .java, .kotlin:
            return
                "\(source.qualifiedClassName) \(how) for the JVM; getToken is called on one thread, as the SDK calls it, and no race check runs on a JVM"
        case .swift, .objectiveC:
            return "\(source.className) \(how)\(sanitize ? " with ThreadSanitizer" : "")"
        }
    }

    /// A compiler's line as the pane shows it: the file by its name (the title names its file,
    /// stderr keeps the whole path), so a narrow pane still shows the line and the reason.
    package static func paneWording(_ line: String) -> String {
        guard line.hasPrefix("/"), let colon = line.firstIndex(of: ":") else { return line }
        return (String(line[..<colon]) as NSString).lastPathComponent + line[colon...]
    }
}

/// A source provider's file refused or not built: its lines, each `file:line:col: error: …`.
package struct SourceBuildFailure: Error, CustomStringConvertible {
    package let lines: [String]
    package var description: String { lines.joined(separator: "\n") }
}
