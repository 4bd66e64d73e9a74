import Dashboard

/// A scenario's banner as a recording holds it, so a replayed demo shows its captions and its
/// ending where the live one did.
public struct RecordedBanner: Codable, Equatable, Sendable {
    public var name: String
    public var step: Int
    public var count: Int
    public var caption: String?
    /// running, waiting, paused, awaiting_step or finished.
    public var phase: String
    /// The event waited for, or the ending.
    public var detail: String?
    public var stepMode: Bool
    public var note: String?

    init(_ banner: ScenarioBanner) {
        (name, step, count, caption, stepMode) = (
            banner.name, banner.step, banner.count, banner.caption.map(Redaction.text), banner.stepMode
        )
        note = banner.note.map(Redaction.text)
        switch banner.phase {
        case .running: phase = "running"
        case .waiting(let event): (phase, detail) = ("waiting", event)
        case .paused: phase = "paused"
        case .awaitingStep: phase = "awaiting_step"
        case .finished(let ending): (phase, detail) = ("finished", Redaction.text(ending))
        }
    }

    /// nil for a phase this build does not know.
    var banner: ScenarioBanner? {
        let phase: ScenarioBanner.Phase
        switch self.phase {
        case "running": phase = .running
        case "waiting": phase = .waiting(detail ?? "")
        case "paused": phase = .paused
        case "awaiting_step": phase = .awaitingStep
        case "finished": phase = .finished(ending: detail ?? "")
        default: return nil
        }
        return ScenarioBanner(
            name: name, step: step, count: count, caption: caption, phase: phase, stepMode: stepMode, note: note)
    }
}
