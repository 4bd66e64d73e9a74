import KeyTable
import ProviderVocabulary
import UICore

/// The key hints along the bottom, from the one key table in effect.
enum FooterRenderer {
    /// htop-style key hints, on as many rows as they need up to two, so every key shows at 80
    /// columns. Only when two rows are not enough do hints drop from the middle of the table;
    /// help and quit always stay.
    static let maxFooterRows = 3

    /// Everything the footer's rows are made from. They change only when the key table, the mode
    /// or the width does, so a renderer that draws frame after frame keeps the last rows with
    /// these (`RenderMemo`): making them was a tenth of a two-pane frame.
    struct Inputs: Equatable {
        // Compared per frame: the tables' arrays are shared between states, and `==` on two
        // arrays with the same storage is one pointer compare.
        var keys: KeyMap
        var fleet: Bool
        var replay: Bool
        var realDevices: Bool
        var scenarios: KeyBinding.ScenarioLevel
        var consumer: ProviderKind
        var driver: ProviderKind
        var width: Int

        init(_ state: DashboardState, width: Int) {
            keys = state.viewer.display.keys
            fleet = state.session.isFleet
            replay = state.viewer.replay != nil
            realDevices = state.watchesRealDevices
            scenarios = state.scenarioKeys
            consumer = state.consumer.kind
            driver = state.driver.kind
            self.width = width
        }
    }

    /// The rows, from `memo` when the inputs are the ones it last saw.
    static func rows(_ state: DashboardState, width: Int, memo: RenderMemo?) -> [[KeyBinding]] {
        guard let memo else { return rows(state, width: width) }
        let inputs = Inputs(state, width: width)
        if let (seen, rows) = memo.footer, seen == inputs { return rows }
        let made = rows(state, width: width)
        memo.footer = (inputs, made)
        return made
    }

    static func rows(_ state: DashboardState, width: Int) -> [[KeyBinding]] {
        // t and v switch the consumer-side and driver-side IDs: named for the kinds that run
        // ("Tracking" and "Delivery" under --solution last-mile).
        // A tap's bar: only what an operator does on real devices (`?` lists the rest).
        let offered = state.activeKeys.filter {
            !$0.inTable && (!state.watchesRealDevices || DashboardState.offeredOnTap($0.command))
        }
        var bindings = offered.map { binding -> KeyBinding in
            var named = binding
            if binding.command == .newTrip { named.hint = Self.shortNoun(state.consumer.kind) }
            if binding.command == .newVehicle { named.hint = Self.shortNoun(state.driver.kind) }
            return named
        }
        func rows(_ all: [KeyBinding]) -> [[KeyBinding]] {
            var rows: [[KeyBinding]] = [[]]
            var used = 0
            for binding in all {
                let w = binding.label.count + binding.hint.count + 2
                if used + w > width, !(rows.last?.isEmpty ?? true) {
                    rows.append([])
                    used = 0
                }
                rows[rows.count - 1].append(binding)
                used += w
            }
            return rows
        }
        bindings = KeyBinding.paired(bindings)
        // Three rows only where two cannot hold every key (a fleet at 80 columns): a key that
        // works but shows nowhere would be found by no one.
        while rows(bindings).count > maxFooterRows,
            let drop = bindings.lastIndex(where: { $0.command != .help && $0.command != .quit })
        {
            bindings.remove(at: drop)
        }
        return rows(bindings)
    }

    static func draw(_ rows: [[KeyBinding]], _ canvas: inout Canvas, in rect: Rect) {
        for (i, row) in rows.enumerated() {
            let y = rect.y + i
            canvas.fill(x: rect.x, y: y, width: rect.width, height: 1, role: .keyHint)
            var x = rect.x
            for binding in row {
                x += canvas.put(binding.label, x: x, y: y, role: .keyLabel)
                x += canvas.put(" " + binding.hint + " ", x: x, y: y, role: .keyHint)
            }
        }
    }

    /// A kind's ID noun as a one-word key hint: "Trip", "Vehicle", "Tracking", "Delivery".
    static func shortNoun(_ kind: ProviderKind) -> String {
        let first = kind.idNoun.split(separator: " ").first.map(String.init) ?? kind.idNoun
        return first.prefix(1).uppercased() + first.dropFirst()
    }
}
