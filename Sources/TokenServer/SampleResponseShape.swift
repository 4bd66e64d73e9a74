import ProviderVocabulary
import TokenReading

extension ResponseShape {
    /// The sample backend's answer for `kind`, as the embedded server writes it. Here, not beside
    /// the shapes: reading an answer needs no provider kind, and only this server writes one.
    public static func sample(for kind: ProviderKind) -> ResponseShape {
        kind.isDelivery ? lastMileSample : onDemandSample
    }
}
