import ArgumentParser
import BoundedYAML
import ConfigFile
import Dashboard
import DashboardRuntime
import Evidence
import Faults
import Fleet
import Foundation
import HeadlessCommands
import KeyTable
import LiveSession
import ProviderVocabulary
import Recording
import RecordingFormat
import ScenarioTargets
import Scenarios
import Settings
import Signals
import Synchronization
import Terminal
import UICore

/// The default command: both providers side by side on an ncurses screen.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Show the consumer and driver token providers side by side (the default).")

    @OptionGroup var backend: BackendOptions
    @OptionGroup(title: "Metrics") var metrics: MetricsOptions

    @OptionGroup(title: "Config file") var config: ConfigOptions

    /// `--theme`, `--themes-dir`, `--no-mouse` under their own title in the help; read here under
    /// their old names.
    @OptionGroup(title: "Display") var display: DisplayOptions
    var theme: String? { display.theme }
    var themesDir: String? { display.themesDir }
    var noMouse: Bool { display.noMouse }

    /// `--record`, `--cast`, `--idle-time-limit`: what the session leaves behind.
    @OptionGroup(title: "Evidence") var evidence: EvidenceOptions
    var record: String? { evidence.record }
    var cast: String? { evidence.cast }
    var castOptions: CastOptions { evidence.castOptions }

    /// `--scenario`, `--step`: a scripted demo; read here under their old names.
    @OptionGroup(title: "Scenarios") var scenarioFlags: ScenarioOptions
    var scenario: String? { scenarioFlags.scenario }
    var step: Bool { scenarioFlags.step }

    /// Hidden, for the crash test (scripts/e2e-terminal-stress.sh, scenario crash): SIGUSR1 then
    /// crashes the process with this signal, to show the terminal is given back.
    @Option(name: .customLong("debug-crash-on-usr1"), help: .hidden)
    var debugCrash: DebugCrash?

    func validate() throws {
        var isFolder: ObjCBool = false
        // A mistyped folder would otherwise fall back to the built-ins without a word.
        if let themesDir,
            !(FileManager.default.fileExists(atPath: themesDir, isDirectory: &isFolder) && isFolder.boolValue)
        {
            throw ValidationError("--themes-dir \(themesDir) is not a folder")
        }
        try castOptions.validate(casting: cast != nil, castFlag: "--cast")
    }

    func run() async throws {
        // Flags win over the config file's profile, which wins over its defaults.
        let (backend, settings) = try config.resolve(self.backend, prefix: "tokendash")
        let environment = ProcessInfo.processInfo.environment
        let (catalog, initialTheme, noColor) = try startingTheme(
            environment, requested: self.theme ?? settings.text(.theme), settings: settings)
        let (scenarios, startScenario) = try scenarioCatalog(embeddedServer: backend.usesEmbeddedServer)
        // Checked after the theme, so a bad --theme is reported even from a script.
        try Self.requireTerminal(environment)
        let signals = signalWatcher()
        let parts = Teardown()
        let running = try await parts.starting {
            try await start(
                backend, look: Look(catalog: catalog, theme: initialTheme, keys: settings.keys),
                scenarios: scenarios, startScenario: startScenario, environment: environment, parts: parts)
        }
        await TerminalBootstrap.run(
            state: running.state, inbox: running.inbox, performer: running.effects,
            recorder: running.evidence.recorder, frames: running.evidence.caster,
            nextSignal: nextSignal(signals), terminal: screen(initialTheme, noColor: noColor))
        await parts.run(completed: true)
    }

    /// What the screen starts with: the theme catalog, the first theme and the keys.
    struct Look: Sendable {
        let catalog: ThemeCatalog
        let theme: Theme
        let keys: KeyMap
    }

    /// What the screen drives while the dashboard runs.
    struct RunningDashboard: Sendable {
        let state: DashboardState
        let inbox: ActionInbox
        let effects: EffectRunner
        let evidence: EvidenceFiles
    }

    /// The one place the dashboard's parts start, in order, each with its stop put on `parts`:
    /// `--record` and `--cast`, the session (its server and proxies), `--metrics`, the scenario,
    /// the event source and the update loops. So the run's end stops them in the reverse order,
    /// and a part that fails to start undoes the ones before it, by the same steps.
    func start(
        _ backend: BackendOptions, look: Look, scenarios: ScenarioCatalog, startScenario: String?,
        environment: [String: String], parts: Teardown
    ) async throws -> RunningDashboard {
        let evidence = try openEvidence(theme: look.theme, environment: environment)
        await parts.add("evidence") { completed in
            guard completed else { return evidence.discard() }
            for failure in evidence.close() { Self.fail(failure) }
        }
        let session: BackendSession
        do {
            session = try await BackendSession.start(
                try backend.resolved(), keepUnbuilt: true, observer: parts.observer)
        } catch {
            Self.fail("\(error)")
            throw ExitCode(1)
        }
        await parts.add("session") { _ in
            for failure in await session.stop() { Self.fail(failure) }
        }
        if let exporter = try await MetricsExporter.start(
            metrics, session: session, backend: backend, command: "dashboard")
        {
            await parts.add("metrics") { _ in await exporter.stop() }
        }
        var state = await Self.initialState(
            session, backend: backend, keys: look.keys, theme: look.theme, themeNames: look.catalog.names)
        evidence.recorder?.start(
            await session.recordingHeader(backend, source: "dashboard", ticks: true, state: state))
        let inbox = ActionInbox()
        let scenarioController = ScenarioController(
            catalog: scenarios, target: Self.scenarioTarget(session, inbox: inbox),
            embeddedServer: session.server != nil, events: session.events, inbox: inbox, stepMode: step)
        await parts.add("scenario") { _ in await scenarioController.stop() }
        state.scenarios = scenarioController.entries
        let (source, tail) = Self.eventSource(session, backend: backend)
        let events = Task { [source] in await source.run(into: inbox) }
        await parts.add("event source") { _ in events.cancel() }
        let loops = session.runUpdateLoops(interval: backend.updateInterval, callers: 1, ramp: backend.ramp)
        await parts.add("update loops") { _ in loops.cancel() }
        let effects = EffectRunner(
            session: session, catalog: look.catalog, events: source,
            snapshots: SnapshotWriter(
                recording: evidence.recorder.map { URL(fileURLWithPath: $0.path) }, tail: tail,
                version: TokenDash.version), scenarios: scenarioController)
        if let startScenario {
            for action in await scenarioController.start(startScenario) { inbox.send(action) }
        }
        return RunningDashboard(state: state, inbox: inbox, effects: effects, evidence: evidence)
    }

    /// SIGHUP too: a closed terminal window or a dropped ssh session would otherwise end us
    /// without stopping the server or restoring the tty settings. (Not in `watch`, where a hangup
    /// must stay ignorable with nohup.)
    func signalWatcher() -> SignalWatcher {
        SignalWatcher([SIGINT, SIGTERM, SIGHUP] + (debugCrash == nil ? [] : [SIGUSR1]))
    }

    /// The ncurses screen, made on the UI thread that owns it.
    func screen(_ theme: Theme, noColor: Bool) -> @Sendable () -> TerminalScreen {
        let mouse = !noMouse
        return { TerminalScreen(theme: theme, noColor: noColor, mouse: mouse) }
    }

    /// What the dashboard writes as it runs: `--record`'s recording and `--cast`'s asciicast.
    struct EvidenceFiles: Sendable {
        let recorder: RecordingWriter?
        let caster: LiveCast?

        /// A run that never started: the recording removed, the cast closed.
        func discard() {
            recorder?.discard()
            _ = caster?.close()
        }

        /// The run's end: each file closed, with what went wrong writing it.
        func close() -> [String] { [recorder?.close(), caster?.close()].compactMap { $0 } }
    }

    /// Opens `--record` and `--cast`; a file that cannot be written is one line and exit 2.
    func openEvidence(theme: Theme, environment: [String: String]) throws -> EvidenceFiles {
        let recorder: RecordingWriter?
        do { recorder = try record.map(RecordingWriter.init(path:)) } catch {
            Self.fail("\(error)")
            throw ExitCode(2)
        }
        do {
            let caster = try cast.map { path in
                try LiveCast(
                    path: path, start: Date(), theme: theme, idleTimeLimit: castOptions.idleTimeLimit,
                    title: "tokendash dashboard, \(Date().formatted(.iso8601))", environment: environment)
            }
            return EvidenceFiles(recorder: recorder, caster: caster)
        } catch {
            recorder?.discard()
            Self.fail("\(error)")
            throw ExitCode(2)
        }
    }

    /// The next signal for the UI thread; with `--debug-crash-on-usr1`, SIGUSR1 crashes the
    /// process there, while the screen is up.
    func nextSignal(_ signals: SignalWatcher) -> @Sendable () async -> Int32? {
        let debugCrash = self.debugCrash
        return {
            var signal = await signals.next()
            while signal == SIGUSR1, let debugCrash {
                debugCrash.crash()
                signal = await signals.next()
            }
            return signal
        }
    }

    /// The live events, with the IDs the groups were made with in their order (the fleet table
    /// names members by it), the ramp's pace while it runs, and the tail snapshots quote.
    static func eventSource(_ session: BackendSession, backend: BackendOptions) -> (LiveEventSource, EventTail) {
        var source = LiveEventSource(
            broadcaster: session.events,
            members: [
                session.consumers.kind: backend.initialIDs(session.consumers.kind),
                session.drivers.kind: backend.initialIDs(session.drivers.kind),
            ])
        let tail = EventTail()
        source.tail = tail
        let ramp = session.pacing.ramp
        source.rampPace = {
            // One read: two could straddle the ramp's end and send a pace for a ramp that is over.
            let pace = ramp.status
            return pace.active ? pace : nil
        }
        return (source, tail)
    }

    /// The theme to start with, from `--theme`, `NO_COLOR` and the theme folders; a typo or a
    /// broken file is reported (at its config line when the config file named it) before anything
    /// touches the terminal.
    private func startingTheme(_ environment: [String: String], requested: String?, settings: ResolvedConfig) throws
        -> (ThemeCatalog, Theme, noColor: Bool)
    {
        let themeName = ThemeCatalog.initialThemeName(requested: requested, environment: environment)
        let noColor = ThemeCatalog.noColor(requested: requested, environment: environment)
        let catalog = ThemeCatalog.standard(
            explicit: themesDir, environment: environment, executable: CommandLine.arguments[0])
        do {
            return (catalog, try catalog.load(themeName), noColor)
        } catch {
            let place =
                self.theme == nil
                ? settings[.theme].flatMap { value in settings.file.map { "\($0):\(value.source.line): " } } : nil
            Self.fail((place ?? "") + "\(error)")
            throw ExitCode(2)
        }
    }

    /// `--scenario`'s file or built-in, checked (file:line) before anything touches the terminal;
    /// the name to start, when one was asked for.
    private func scenarioCatalog(embeddedServer: Bool) throws -> (ScenarioCatalog, start: String?) {
        var scenarios = ScenarioCatalog()
        guard let requested = scenario else { return (scenarios, nil) }
        do {
            let loaded = try ScenarioCatalog.load(requested)
            if let problem = loaded.problem(embeddedServer: embeddedServer) {
                Self.fail(problem)
                throw ExitCode(2)
            }
            scenarios.add(loaded)
            return (scenarios, loaded.name)
        } catch let error as FileProblem {
            Self.fail("\(error)")
            throw ExitCode(2)
        }
    }

    /// stdin and stdout a TTY and a TERM that draws, or a one-line error pointing at `watch`.
    private static func requireTerminal(_ environment: [String: String]) throws {
        guard hasDrawingTerminal(environment) else {
            fail(
                "the dashboard needs a terminal (stdin and stdout a TTY, TERM not dumb); for scripts use `tokendash watch`"
            )
            throw ExitCode(2)
        }
    }

    /// The dashboard as the session starts it: its panes, fleet sizes, backend, theme and keys.
    private static func initialState(
        _ session: BackendSession, backend: BackendOptions, keys: KeyMap, theme: Theme,
        themeNames: [String]
    ) async -> DashboardState {
        var state = DashboardState(
            consumerID: await session.consumers.id(at: 0), driverID: await session.drivers.id(at: 0), now: Date(),
            backend: session.backendDescription, faultsAvailable: session.faults.canInject,
            theme: theme, themeNames: themeNames, refreshMargin: backend.refreshMargin,
            trips: backend.initialIDs(session.solution.consumerKind).count,
            vehicles: backend.initialIDs(session.solution.driverKind).count,
            solution: session.solution, only: backend.sdks.only)
        state.insecure = session.insecure
        state.updateInterval = backend.updateInterval
        state.providerLogic = backend.providerLogic
        state.sourceLabels = session.sourceLabels
        state.keys = keys
        return state
    }

    /// What scenarios drive: the session's SDKs and server. What a step changes outside the event
    /// stream reaches the header as the keys' changes do.
    private static func scenarioTarget(_ session: BackendSession, inbox: ActionInbox) -> LiveScenarioTarget {
        LiveScenarioTarget(
            server: session.server, consumers: session.consumers, drivers: session.drivers,
            deviceClock: session.deviceClock, proxyFaults: session.faults.proxied
        ) { change in
            switch change {
            case .faults(let faults):
                for setting in faults.values where setting.fault == .latency {
                    inbox.send(.faultLatency(milliseconds: setting.latencyMilliseconds))
                }
                inbox.send(.faultsChanged(faults.mapValues(\.fault)))
            case .paused(let paused): inbox.send(.sdksPaused(paused))
            }
        }
    }

    static func fail(_ message: String) {
        say(message, as: nil)
    }
}
