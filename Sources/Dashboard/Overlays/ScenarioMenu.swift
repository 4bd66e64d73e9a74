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
        switch key {
        case .escape, .character("q"), .character("S"):
            state.overlay = .none
        case .up, .character("k"):
            state.overlay = .scenarios(selection: (selection + rows.count - 1) % rows.count)
        case .down, .character("j"):
            state.overlay = .scenarios(selection: (selection + 1) % rows.count)
        case .enter:
            state.overlay = .none
            switch rows[min(selection, rows.count - 1)] {
            case .control(let control): return [.scenarioControl(control)]
            case .start(let entry): return [.startScenario(entry.name)]
            }
        default:
            break
        }
        return []
    }
}

/// The S menu's lines.
enum ScenarioMenuRenderer {
    static func rows(_ state: DashboardState, selection: Int) -> [(String, StyleRole)] {
        let menu = state.scenarioMenuRows
        guard !menu.isEmpty else { return [("No scenarios in this run.", .overlay), ("", .overlay), ("Esc closes", .dim)] }
        let nameWidth = max(8, (state.scenarios.map(\.name.count).max() ?? 0) + 2)
        var rows: [(String, StyleRole)] = []
        for (i, row) in menu.enumerated() {
            if i > 0, case .start = row, case .control = menu[i - 1] { rows.append(("", .overlay)) }
            let text: String = switch row {
            case .control(.togglePause): state.scenario?.phase == .paused ? "resume \(state.scenario?.name ?? "")" : "pause \(state.scenario?.name ?? "")"
            case .control(.restart): "restart \(state.scenario?.name ?? "")"
            case .control(.stop): state.scenario?.isFinished == true ? "close the banner" : "stop \(state.scenario?.name ?? "")"
            case .control(.advance): "next step"
            case .start(let entry): entry.name.fitted(nameWidth) + entry.description
            }
            rows.append((text, i == selection ? .selected : .overlay))
        }
        return rows + [("", .overlay), ("↑/↓ and Enter starts or acts; Space steps; P pauses; Esc closes", .dim)]
    }
}
