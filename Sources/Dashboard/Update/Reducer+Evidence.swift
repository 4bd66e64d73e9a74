import Foundation
import UICore

/// Marks, freeze and snapshots: the keys a support engineer uses to keep evidence.
extension Reducer {
    static func startMark(_ state: inout DashboardState) -> [Effect] {
        state.overlay = .mark("")
        return []
    }

    /// The note prompt: free text (it is not an ID), up to `Mark.noteLimit` characters.
    static func handleMarkNote(_ key: Key, text: String, _ state: inout DashboardState) -> [Effect] {
        switch key {
        case .backspace:
            state.overlay = .mark(String(text.dropLast()))
        case .character("\u{15}"):
            state.overlay = .mark("")
        case .character(let c) where !c.isNewline && !(c.asciiValue.map { $0 < 0x20 || $0 == 0x7f } ?? false):
            state.overlay =
                text.count >= Mark.noteLimit
                ? .mark(text, note: "at most \(Mark.noteLimit) characters: \"\(c.printable)\" not added")
                : .mark(text + String(c))
        case .escape:
            state.overlay = .none
        case .enter:
            state.overlay = .none
            let number = (state.marks.last?.number ?? 0) + 1
            let note = text.trimmingCharacters(in: .whitespaces)
            return [.addMark(Mark(number: number, at: state.now, note: note.isEmpty ? nil : note))]
        default:
            break
        }
        return []
    }

    static func marked(_ mark: Mark, _ state: inout DashboardState) {
        // A replay may hand the same mark again after a seek rebuilt the state up to it.
        guard !state.marks.contains(where: { $0.number == mark.number }) else { return }
        state.marks.append(mark)
        state.message = mark.describe(state.timeZone)
    }

    static func toggleFreeze(_ state: inout DashboardState) {
        if state.frozen == nil {
            state.viewer.frozen = state.session
            state.eventsWhileFrozen = 0
        } else {
            state.frozen = nil
            state.message =
                "unfrozen: \(state.eventsWhileFrozen) event\(state.eventsWhileFrozen == 1 ? "" : "s") came in while frozen"
        }
    }

    /// The screen as it shows now (the frozen picture if frozen), without the overlay and with
    /// tokens redacted even when revealed: a snapshot is evidence for a ticket, and a ticket is
    /// no place for a credential.
    static func snapshot(_ state: DashboardState) -> [Effect] {
        var shown = state.shown
        shown.overlay = .none
        shown.message = nil
        shown.reveal = false
        let width = state.screenWidth > 0 ? state.screenWidth : 160
        let height = state.screenHeight > 0 ? state.screenHeight : 48
        return [.writeSnapshot(SnapshotRequest(picture: shown, width: width, height: height, at: state.now))]
    }
}
