import Dashboard
import RecordingFormat
import Redaction

/// A scenario's banner as the dashboard shows it and as a recording holds it.
extension RecordedBanner {
    init(_ banner: ScenarioBanner) {
        let (phase, detail): (String, String?)
        switch banner.phase {
        case .running: (phase, detail) = ("running", nil)
        case .waiting(let event): (phase, detail) = ("waiting", event)
        case .paused: (phase, detail) = ("paused", nil)
        case .awaitingStep: (phase, detail) = ("awaiting_step", nil)
        case .finished(let ending): (phase, detail) = ("finished", SecretRedactor.redact(ending))
        }
        self.init(
            name: banner.name, step: banner.step, count: banner.count,
            caption: banner.caption.map(SecretRedactor.redact), phase: phase, detail: detail,
            stepMode: banner.stepMode, note: banner.note.map(SecretRedactor.redact))
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
