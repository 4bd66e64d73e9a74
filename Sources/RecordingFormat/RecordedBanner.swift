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

    public init(
        name: String, step: Int, count: Int, caption: String?, phase: String, detail: String?, stepMode: Bool,
        note: String?
    ) {
        (self.name, self.step, self.count, self.caption, self.phase) = (name, step, count, caption, phase)
        (self.detail, self.stepMode, self.note) = (detail, stepMode, note)
    }
}
