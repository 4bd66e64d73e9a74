import ArgumentParser
import Dashboard
import UICore
import Fleet
import FleetAuth
import Foundation
import Synchronization
import Terminal

/// The default command: both providers side by side on an ncurses screen.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Show the consumer and driver token providers side by side (the default).")

    @OptionGroup var backend: BackendOptions

    @Option(help: "Theme name (a file in Themes/ or a built-in: default, light, high-contrast, mono).")
    var theme = "default"

    @Option(name: .customLong("themes-dir"), help: "Folder with more theme files (NAME.yaml).")
    var themesDir: String?

    func validate() throws {
        var isFolder: ObjCBool = false
        // A mistyped folder would otherwise fall back to the built-ins without a word.
        if let themesDir, !(FileManager.default.fileExists(atPath: themesDir, isDirectory: &isFolder) && isFolder.boolValue) {
            throw ValidationError("--themes-dir \(themesDir) is not a folder")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let themeName = ThemeCatalog.initialThemeName(requested: theme, environment: environment)
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        let catalog = ThemeCatalog.standard(explicit: themesDir, environment: environment, executable: CommandLine.arguments[0])
        let initialTheme: Theme
        do {
            // The asked-for theme is loaded even when NO_COLOR replaces it, so a typo or a broken
            // file is reported the same way whatever the environment.
            let requested = try catalog.load(theme)
            initialTheme = themeName == theme ? requested : try catalog.load(themeName)
        } catch {
            Self.fail("\(error)")
            throw ExitCode(2)
        }
        // Checked after the theme, so a bad --theme is reported even from a script.
        let term = environment["TERM"] ?? ""
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1, !term.isEmpty, term != "dumb" else {
            Self.fail("the dashboard needs a terminal (stdin and stdout a TTY, TERM not dumb); for scripts use `tokendash watch`")
            throw ExitCode(2)
        }
        // SIGHUP too: a closed terminal window or a dropped ssh session would otherwise end us
        // without stopping the server or restoring the tty settings. (Not in `watch`, where a
        // hangup must stay ignorable with nohup.)
        let signals = SignalWatcher([SIGINT, SIGTERM, SIGHUP])
        let session: BackendSession
        do { session = try await BackendSession.start(backend) } catch {
            Self.fail("\(error)")
            throw ExitCode(1)
        }
        var state = DashboardState(
            consumerID: await session.consumers.id(at: 0), driverID: await session.drivers.id(at: 0), now: Date(),
            backend: session.backendDescription, faultsAvailable: session.server != nil,
            themeName: initialTheme.name, themeNames: catalog.names, refreshMargin: backend.refreshMargin,
            trips: backend.trips, vehicles: backend.vehicles, solution: session.solution)
        state.insecure = session.insecure
        let inbox = ActionInbox()
        let stream = session.events.subscribe(buffer: 1 << 16)
        let pump = Task { for await event in stream { inbox.send(.event(event)) } }
        let fleetStats = state.isFleet ? Self.fleetStatistics(session, inbox: inbox) : nil
        let loops = session.runUpdateLoops(interval: backend.updateInterval, callers: 1)
        let terminated = Mutex(false)
        let signalTask = Task {
            _ = await signals.next()
            terminated.withLock { $0 = true }
        }
        let runner = EffectRunner(session: session, inbox: inbox)
        let loop = UILoop(state: state, theme: initialTheme, catalog: catalog, noColor: noColor, inbox: inbox, runner: runner,
                          terminated: { terminated.withLock { $0 } })
        await loop.runOnOwnThread()
        signalTask.cancel()
        loops.cancel()
        fleetStats?.cancel()
        await session.stop()
        pump.cancel()
    }

    /// In a fleet, aggregates every provider's events and sends the summary rows once a second.
    static func fleetStatistics(_ session: BackendSession, inbox: ActionInbox) -> Task<Void, Never> {
        let stream = session.events.subscribe(buffer: 1 << 17)
        let aggregate = FleetAggregate(kinds: session.solution.kinds)
        let collector = Task { for await event in stream { aggregate.record(event) } }
        return Task {
            let counts = [session.consumers.kind: await session.consumers.count, session.drivers.kind: await session.drivers.count]
            while !Task.isCancelled {
                inbox.send(.fleet(aggregate.summaries(now: Date(), counts: counts)))
                try? await Task.sleep(for: .seconds(1))
            }
            collector.cancel()
        }
    }

    /// Both kinds' statistics behind one lock: the collector writes, the once-a-second reader summarises.
    private final class FleetAggregate: Sendable {
        private let stats: Mutex<[ProviderKind: FleetStatistics]>

        /// One entry per kind the session runs; events of any other kind are not counted.
        init(kinds: [ProviderKind]) {
            stats = Mutex(Dictionary(uniqueKeysWithValues: kinds.map { ($0, FleetStatistics()) }))
        }

        func record(_ event: ProviderEvent) { stats.withLock { $0[event.provider]?.record(event) } }

        func summaries(now: Date, counts: [ProviderKind: Int]) -> [ProviderKind: FleetSummary] {
            stats.withLock { all in
                all.reduce(into: [ProviderKind: FleetSummary]()) { $0[$1.key] = $1.value.summary(now: now, providers: counts[$1.key] ?? 0) }
            }
        }
    }

    static func fail(_ message: String) {
        FileHandle.standardError.write(Data("tokendash: \(message)\n".utf8))
    }
}
