import KeyTable
import UICore

extension DashboardState {
    /// Which scenario keys apply: Space and P while one runs, S when there are any to list.
    var scenarioKeys: KeyBinding.ScenarioLevel {
        if let scenario = session.scenario, !scenario.isFinished { return .running }
        return session.scenarios.isEmpty && session.scenario == nil ? .none : .listed
    }
}

extension Reducer {
    /// Keys in the S menu: move, choose with Enter, close with Esc (or S again).
    static func handleScenarioMenu(_ key: Key, selection: Int, _ state: inout DashboardState) -> [Effect] {
        let rows = state.scenarioMenuRows
        guard !rows.isEmpty else {
            state.overlay = .none
            return []
        }
        switch ListMenu.outcome(state.keys.menuCommand(for: key), selection: selection, count: rows.count) {
        case .highlight(let row):
            state.overlay = .scenarios(selection: row)
        case .choose(let row):
            state.overlay = .none
            switch rows[row] {
            case .control(let control): return [.scenarioControl(control)]
            case .start(let entry): return [.startScenario(entry.name)]
            }
        case .close:
            state.overlay = .none
        case .other:
            // The menu's own key closes it too.
            if state.command(for: key) == .scenarioMenu { state.overlay = .none }
        }
        return []
    }
}

/// The S menu's lines.
enum ScenarioMenuRenderer {
    static func rows(_ state: DashboardState, selection: Int) -> [(String, StyleRole)] {
        let menu = state.scenarioMenuRows
        guard !menu.isEmpty else {
            return [
                ("No scenarios in this run.", .overlay), ("", .overlay),
                ("\(state.keys.label(.menuClose)) closes", .dim),
            ]
        }
        let nameWidth = max(8, (state.scenarios.map(\.name.count).max() ?? 0) + 2)
        var rows: [(String, StyleRole)] = []
        for (i, row) in menu.enumerated() {
            if i > 0, case .start = row, case .control = menu[i - 1] { rows.append(("", .overlay)) }
            let text: String =
                switch row {
                case .control(.togglePause):
                    state.scenario?.phase == .paused
                        ? "resume \(state.scenario?.name ?? "")" : "pause \(state.scenario?.name ?? "")"
                case .control(.restart): "restart \(state.scenario?.name ?? "")"
                case .control(.stop):
                    state.scenario?.isFinished == true ? "close the banner" : "stop \(state.scenario?.name ?? "")"
                case .control(.advance): "next step"
                case .start(let entry): entry.name.fitted(nameWidth) + entry.description
                }
            rows.append((text, i == selection ? .selected : .overlay))
        }
        let keys = state.keys
        let hint =
            "\(ListMenu.hint(keys)) starts or acts; \(keys.label(.scenarioStep)) steps; \(keys.label(.scenarioPause)) pauses; \(keys.label(.menuClose)) closes"
        return rows + [("", .overlay), (hint, .dim)]
    }
}
