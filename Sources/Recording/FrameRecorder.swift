import Dashboard
import Foundation
import UICore

/// Takes each frame the loop draws, with the state it was drawn from, besides each action
/// (`ActionRecorder`): `--cast` writes them as an asciicast while the dashboard runs.
public protocol FrameRecorder: ActionRecorder {
    /// Called on the loop's thread right after `canvas` was drawn.
    func frame(_ canvas: Canvas, of state: DashboardState, at time: Date)
}
