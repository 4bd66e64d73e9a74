import ProviderVocabulary

/// The routes a tap reads requests by, tried in order: the user's first, then Google's sample
/// routes, so a request the apps make to a sample backend is read without any flag.
public struct TapRoutes: Sendable {
    public let templates: [RouteTemplate]

    public init(_ given: [RouteTemplate] = []) {
        templates =
            given + RouteTemplate.samples.filter { sample in !given.contains { $0.template == sample.template } }
    }

    /// The kind and ID a request target asks for; nil for any other request (still forwarded).
    public func match(_ target: Substring) -> (kind: ProviderKind, id: String)? {
        // Cut once, not once a route: the routes tried are the user's and Google's four samples.
        let cut = RouteTemplate.Target(target)
        for template in templates {
            if let id = template.id(in: cut) { return (template.kind, id) }
        }
        return nil
    }
}
