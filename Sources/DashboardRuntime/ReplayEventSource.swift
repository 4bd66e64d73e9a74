import Dashboard
import Fleet
import Foundation
import ProviderEvents
import ProviderVocabulary
import Recording
import Synchronization

/// A recording as the dashboard's event source (`tokendash replay`): the recorded actions at
/// their recorded times, scaled by the speed, with pause, step and seek. Seeking back rebuilds
/// the state from the start (`ReplayTimeline.fold`) and hands it over as `.restore`. Nothing
/// recorded is carried out again: the loop gets recorded actions as `.recorded`, whose effects
/// the reducer drops.
public final class ReplayEventSource: EventSource, Sendable {
    public let timeline: ReplayTimeline

    private struct Playback {
        var position: Date
        /// The first action not yet applied.
        var next = 0
        var speed: Int
        var paused: Bool
        var aggregate: ReplayFleet?
        /// The status last sent, so the header is updated when what it shows changes.
        var sent: ReplayStatus?
    }
    // Guards playback: moved by the playing task, commanded by effects from the loop.
    private let playback: Mutex<Playback>

    public init(timeline: ReplayTimeline, speed: Int = 1, paused: Bool = false) {
        self.timeline = timeline
        playback = Mutex(
            Playback(
                position: timeline.start, speed: speed, paused: paused,
                aggregate: timeline.makeAggregate()))
    }

    public var status: ReplayStatus { playback.withLock { status($0) } }

    private func status(_ p: Playback) -> ReplayStatus {
        ReplayStatus(position: p.position, start: timeline.start, end: timeline.end, speed: p.speed, paused: p.paused)
    }

    /// Plays in real time: every 50 ms (a quarter second while paused) the position moves by the
    /// time passed times the speed, and what falls due is sent.
    public func run(into inbox: ActionInbox) async {
        for action in playback.withLock({ statusUpdate(&$0, force: true) }) { inbox.send(action) }
        let clock = ContinuousClock()
        var last = clock.now
        while !Task.isCancelled {
            let paused = playback.withLock { $0.paused }
            try? await Task.sleep(for: .milliseconds(paused ? 250 : 50))
            let now = clock.now
            let elapsed = now - last
            last = now
            for action in advance(realSeconds: elapsed.timeInterval) { inbox.send(action) }
        }
    }

    /// Moves the position by `realSeconds` times the speed, unless paused; returns what falls due.
    public func advance(realSeconds: Double) -> [Action] {
        playback.withLock { p in
            guard !p.paused else { return statusUpdate(&p) }
            return play(&p, to: p.position.addingTimeInterval(realSeconds * Double(p.speed)))
        }
    }

    /// Plays to `time` (not back): what a test drives directly.
    public func play(until time: Date) -> [Action] {
        playback.withLock { p in play(&p, to: max(p.position, time)) }
    }

    private func play(_ p: inout Playback, to time: Date) -> [Action] {
        let target = min(time, timeline.end)
        var out: [Action] = []
        while p.next < timeline.actions.count, timeline.actions[p.next].time <= target {
            out += timeline.applied(p.next, aggregate: p.aggregate)
            p.next += 1
        }
        p.position = target
        // At the end it stops, and says so.
        if target >= timeline.end { p.paused = true }
        return out + statusUpdate(&p)
    }

    private func statusUpdate(_ p: inout Playback, force: Bool = false) -> [Action] {
        let now = status(p)
        if !force, let sent = p.sent, sent.speed == now.speed, sent.paused == now.paused,
            Int(sent.position.timeIntervalSince(timeline.start)) == Int(now.position.timeIntervalSince(timeline.start))
        {
            return []
        }
        p.sent = now
        return [.replayStatus(now)]
    }

    /// Carries out a replay key; answers with what the loop applies.
    public func perform(_ command: ReplayControl) -> [Action] {
        playback.withLock { p in
            switch command {
            case .togglePause:
                if p.paused, p.position >= timeline.end { return seek(&p, to: timeline.start, paused: false) }
                p.paused.toggle()
                return statusUpdate(&p)
            case .nextSpeed:
                p.speed =
                    ReplayStatus(position: p.position, start: timeline.start, end: timeline.end, speed: p.speed)
                    .nextSpeed
                return statusUpdate(&p)
            case .step:
                p.paused = true
                let actions = timeline.actions
                var i = p.next
                while i < actions.count, case .tick = actions[i].action { i += 1 }
                let out = play(&p, to: i < actions.count ? actions[i].time : timeline.end)
                p.paused = true
                return out + statusUpdate(&p)
            case .seek(let seconds):
                return seek(&p, to: p.position.addingTimeInterval(seconds), paused: p.paused)
            case .toStart:
                return seek(&p, to: timeline.start, paused: p.paused)
            case .toEnd:
                return seek(&p, to: timeline.end, paused: true)
            }
        }
    }

    /// Forward: plays there at once. Back: the state rebuilt from the start, as `.restore`.
    private func seek(_ p: inout Playback, to time: Date, paused: Bool) -> [Action] {
        let target = min(max(time, timeline.start), timeline.end)
        if target >= p.position {
            let out = play(&p, to: target)
            p.paused = paused || target >= timeline.end
            return out + statusUpdate(&p)
        }
        let folded = timeline.fold(to: target)
        p.position = target
        p.next = timeline.index(after: target)
        p.aggregate = folded.aggregate
        p.paused = paused
        var state = folded.state
        state.replay = status(p)
        return [.restore(state)] + statusUpdate(&p, force: true)
    }

    /// The last `limit` recorded events up to where playback stands, for a snapshot (`s`).
    public func recentEvents(limit: Int = 200) -> [ProviderEvent] {
        let next = playback.withLock { $0.next }
        var events: [ProviderEvent] = []
        for recorded in timeline.actions[..<min(next, timeline.actions.count)].reversed() {
            guard events.count < limit else { break }
            if case .event(let event) = recorded.action { events.append(event) }
        }
        return events.reversed()
    }

    /// The replay's own fleet's answer to `effect` where playback stands: the tables under the
    /// viewer's filters, the member a pane follows (a tap's with its last hour), the member an ID names.
    public func answer(_ effect: Effect) -> [Action] {
        playback.withLock { p in timeline.answer(effect, aggregate: p.aggregate, now: p.position).map { [$0] } ?? [] }
    }
}

/// The effects of a replay: its keys move the playback, the table query and themes are the
/// viewer's own; everything that would act on providers or a server is not carried out (a
/// recording's outcomes are in it already, and the reducer refuses such keys in a replay).
public struct ReplayEffectPerformer: EffectPerformer {
    let source: ReplayEventSource
    let loadTheme: @Sendable (String) -> Action
    /// The viewer's snapshots (`s`), with the recorded events up to where playback stands.
    let snapshots: SnapshotWriter?

    public init(
        source: ReplayEventSource, snapshots: SnapshotWriter? = nil, loadTheme: @escaping @Sendable (String) -> Action
    ) {
        self.source = source
        self.snapshots = snapshots
        self.loadTheme = loadTheme
    }

    public func perform(_ effect: Effect) async -> [Action] {
        switch effect {
        case .replay(let command): source.perform(command)
        // The viewer's own Enter follows an ID of the recording, as the live performer answers.
        case .queryTables, .follow, .findMember: source.answer(effect)
        case .loadTheme(let name): [loadTheme(name)]
        // The viewer's own marks and snapshots: evidence found while watching a recording.
        case .addMark(let mark): [.marked(mark)]
        case .writeSnapshot(let request): snapshots?.write(request) ?? [.message("snapshots need a place to go")]
        default: []
        }
    }
}
