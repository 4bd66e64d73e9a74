import Foundation
import LogReading
import UICore

/// `tokendash logs FILE`'s screen as a value: the export's summary (at the playhead, when it
/// plays), the row selected, and the ID followed. Keys change it (`handle`), and so does time
/// passing while it plays (`advance`); `LogsRenderer` draws it. Pure: no terminal, no clock.
public struct LogsView: Sendable {
    /// One row of the table: an ID, what the logs say of it, and what a tap recording adds.
    public struct Row: Sendable {
        public var tally: IDTally
        public var finding: TapJoin.Finding?
        /// While the export plays: how long the ID has been quiet at the playhead, when that is
        /// longer than its silence threshold (a silence under way, not yet ended by a call).
        public var quietFor: Double?

        /// Higher first: refused or tokenless while silent, then silent, then errors, then the rest.
        var trouble: Int {
            switch finding?.verdict {
            case .refusedWhileSilent?, .noTokenWhileSilent?: return 3
            default: break
            }
            if !tally.silences.isEmpty { return 2 }
            return tally.errors.isEmpty ? 0 : 1
        }
    }

    public private(set) var summary: LogSummary
    /// What was read, as the header names it ("fleet.json", "3 files").
    public let source: String
    public private(set) var rows: [Row]
    /// The playhead, when the export has calls to play.
    public private(set) var player: LogsPlayer?
    public private(set) var selected = 0
    /// The first row shown: the table scrolls to keep the selection in sight.
    public private(set) var top = 0
    /// The ID whose detail is shown; nil shows the table.
    public private(set) var following: LoggedID?
    /// The devices grouped by platform, SDK type and version, instead of the table.
    public private(set) var showingVersions = false
    /// What an ID must hold to be listed (`/`, case aside): one of 10,000 devices is found by
    /// typing part of its ID, not by scrolling.
    public private(set) var filter = ""
    /// Keys go to `filter` while true.
    public private(set) var typingFilter = false
    static let longestFilter = 64

    /// The rows listed: those whose ID holds `filter`.
    public var listed: [Row] {
        filter.isEmpty ? rows : rows.filter { $0.tally.id.id.range(of: filter, options: .caseInsensitive) != nil }
    }

    public init(_ summary: LogSummary, source: String) {
        self.summary = summary
        self.source = source
        rows = Self.rows(summary)
    }

    /// The screen on a playable export, its playhead where `player` has it (`tokendash logs` opens
    /// on the end, paused: the whole export; `replay` at the start).
    public init(_ player: LogsPlayer, source: String) {
        self.init(player.summary, source: source)
        self.player = player
        rows = Self.rows(summary, playhead: player.playhead)
    }

    static func rows(_ summary: LogSummary, playhead: LogInstant? = nil) -> [Row] {
        summary.ids.map { tally in
            var quiet: Double?
            if let playhead, let last = tally.last, last.seconds(to: playhead) > tally.cadence.threshold {
                quiet = last.seconds(to: playhead)
            }
            return Row(tally: tally, finding: summary.tap?[tally.id], quietFor: quiet)
        }.sorted {
            ($0.trouble, $1.tally.id) > ($1.trouble, $0.tally.id)
        }
    }

    /// The screen with its playhead as `player` has it (a replay's start, a cast's).
    public func playing(_ player: LogsPlayer, visibleRows: Int) -> LogsView {
        var view = self
        view.player = player
        view.show(player.summary, visibleRows: visibleRows)
        return view
    }

    /// The screen with its playhead at the end: the whole export.
    public func playing(endOf player: LogsPlayer) -> LogsView {
        var player = player
        player.seek(to: player.to)
        return playing(player, visibleRows: 0)
    }

    /// Time passing while the export plays.
    public mutating func advance(by elapsed: Duration, visibleRows: Int) {
        guard var player, player.advance(by: elapsed) else { return }
        self.player = player
        show(player.summary, visibleRows: visibleRows)
    }

    /// The playhead's summary, the selection kept on the same ID as rows come and re-sort.
    private mutating func show(_ next: LogSummary, visibleRows: Int) {
        let selectedID = listed.indices.contains(selected) ? listed[selected].tally.id : nil
        summary = next
        rows = Self.rows(next, playhead: player?.playhead)
        let rows = listed
        if following != nil, !rows.contains(where: { $0.tally.id == following }) { following = nil }
        selected =
            selectedID.flatMap { id in rows.firstIndex { $0.tally.id == id } } ?? min(selected, max(0, rows.count - 1))
        move(by: 0, visibleRows: visibleRows)
    }

    /// Keys of the playhead, as `replay`'s: Space or p plays and pauses, ← and → seek, . steps to
    /// the next call, > changes the speed; [ and ] jump to the start and the end (Home and End
    /// move in the table here). Whether the key was one.
    private mutating func handlePlayback(_ key: Key, visibleRows: Int) -> Bool {
        guard var player else { return false }
        switch key {
        case .character(" "), .character("p"): player.togglePause()
        case .left: player.seek(by: -player.step)
        case .right: player.seek(by: player.step)
        case .character("."): player.stepToNextCall()
        case .character(">"): player.nextSpeed()
        case .character("["): player.seek(to: player.from)
        case .character("]"): player.seek(to: player.to)
        default: return false
        }
        self.player = player
        show(player.summary, visibleRows: visibleRows)
        return true
    }

    public enum Outcome: Sendable, Equatable { case stay, quit }

    /// `visibleRows`: how many table rows the screen has room for (`LogsRenderer.tableRows`).
    public mutating func handle(_ key: Key, visibleRows: Int) -> Outcome {
        if typingFilter { return typeFilter(key) }
        if handlePlayback(key, visibleRows: visibleRows) { return .stay }
        let rows = listed
        switch key {
        case .character("q"), .interrupt: return .quit
        case .character("/"):
            following = nil
            showingVersions = false
            typingFilter = true
        case .escape, .backspace, .left:
            if following == nil, !showingVersions, !filter.isEmpty { setFilter("") }
            following = nil
            showingVersions = false
        case .character("v"):
            following = nil
            showingVersions.toggle()
        case .enter, .right:
            guard !showingVersions else { break }
            if following == nil, rows.indices.contains(selected) { following = rows[selected].tally.id }
        case .up, .character("k"): move(by: -1, visibleRows: visibleRows)
        case .down, .character("j"): move(by: 1, visibleRows: visibleRows)
        case .home: move(by: -rows.count, visibleRows: visibleRows)
        case .end: move(by: rows.count, visibleRows: visibleRows)
        case .click(_, let y):
            // A click on a table row selects it; a second click on it follows it.
            let row = top + y - LogsRenderer.tableTop
            guard following == nil, !showingVersions, y >= LogsRenderer.tableTop, rows.indices.contains(row) else {
                break
            }
            if row == selected { following = rows[row].tally.id } else { selected = row }
        default: break
        }
        return .stay
    }

    /// A key while the filter is typed: text to it, Backspace takes a character back, Enter keeps
    /// it, Esc drops it; Ctrl-C still quits.
    private mutating func typeFilter(_ key: Key) -> Outcome {
        switch key {
        case .interrupt: return .quit
        case .character(let character) where filter.count < Self.longestFilter && !character.isNewline:
            setFilter(filter + String(character))
        case .backspace: setFilter(String(filter.dropLast()))
        case .enter: typingFilter = false
        case .escape:
            typingFilter = false
            setFilter("")
        default: break
        }
        return .stay
    }

    private mutating func setFilter(_ text: String) {
        filter = text
        selected = 0
        top = 0
    }

    private mutating func move(by step: Int, visibleRows: Int) {
        let rows = listed
        guard !rows.isEmpty else {
            selected = 0
            top = 0
            return
        }
        selected = min(rows.count - 1, max(0, selected + step))
        if following != nil { following = rows[selected].tally.id }
        let room = max(1, visibleRows)
        if selected < top { top = selected }
        if selected >= top + room { top = selected - room + 1 }
    }

    /// The followed row.
    public var followedRow: Row? { following.flatMap { id in rows.first { $0.tally.id == id } } }
}
