import Foundation
import ProviderVocabulary

/// A token route as the providers are configured with it (`/token/consumer/{tripId}`), read
/// backwards: which kind of token a request asks for and for which ID. The placeholder names the
/// kind (`{tripId}` a trip token, `{deliveryVehicleId}` a delivery vehicle's); `{id}` takes the
/// kind the flag gave. A template may put the ID in a query item (`/token?trip={tripId}`).
public struct RouteTemplate: Sendable, Equatable, CustomStringConvertible {
    public let kind: ProviderKind
    public let template: String
    /// The path's segments; `nil` marks the one that holds the ID, if the path holds it.
    private let segments: [String?]
    /// The query item that holds the ID, when the path does not.
    private let queryName: String?

    public var description: String { template }

    public enum Problem: Error, Sendable, CustomStringConvertible {
        case noPlaceholder(String)
        case notAPath(String)
        public var description: String {
            switch self {
            case .noPlaceholder(let t):
                "route \(t) has no ID placeholder ({tripId}, {vehicleId}, {trackingId}, {deliveryVehicleId} or {id})"
            case .notAPath(let t): "route \(t) must start with /"
            }
        }
    }

    /// `role` decides the kind of an `{id}` template; a kind's own placeholder wins over it.
    public init(_ template: String, role: ProviderKind.Role, solution: ProviderKind.Solution = .onDemand)
        throws(Problem)
    {
        guard template.hasPrefix("/") else { throw .notAPath(template) }
        let placeholders = ProviderKind.allCases.map { ($0, "{\($0.idParameter)}") } + [(solution.kind(role), "{id}")]
        guard let (kind, placeholder) = placeholders.first(where: { template.contains($0.1) }) else {
            throw .noPlaceholder(template)
        }
        self.kind = kind
        self.template = template
        let parts = template.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        segments = path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0 == placeholder ? nil : String($0)
        }
        if path.contains(placeholder) {
            queryName = nil
        } else {
            let items = parts.count > 1 ? parts[1].split(separator: "&") : []
            queryName = items.first { $0.hasSuffix("=" + placeholder) }.map {
                String($0.dropLast(placeholder.count + 1))
            }
        }
    }

    /// The default routes: Google's sample backends' for every kind (on-demand and last-mile).
    public static let samples: [RouteTemplate] = ProviderKind.allCases.compactMap {
        try? RouteTemplate($0.defaultRoutePath, role: $0.role, solution: $0.solution)
    }

    /// The ID `target` (a request's path and query, as on its request line) asks for, percent-decoded;
    /// nil when the request is not for this route.
    public func id(in target: Substring) -> String? { id(in: Target(target)) }

    /// A request target cut into path, query and path segments once for all the routes tried:
    /// the segments as ranges of the path's bytes, so cutting allocates nothing but their list.
    struct Target {
        let query: Substring?
        let segments: [Substring]

        init(_ target: Substring) {
            let utf8 = target.utf8
            let mark = utf8.firstIndex(of: UInt8(ascii: "?"))
            query = mark.map { target[target.utf8.index(after: $0)...] }
            let path = target[..<(mark ?? utf8.endIndex)]
            var segments: [Substring] = []
            segments.reserveCapacity(4)
            var start = path.startIndex
            while let slash = path.utf8[start...].firstIndex(of: UInt8(ascii: "/")) {
                segments.append(path[start..<slash])
                start = path.utf8.index(after: slash)
            }
            segments.append(path[start...])
            self.segments = segments
        }
    }

    func id(in target: Target) -> String? {
        if let queryName {
            guard segments.elementsEqual(target.segments, by: { $0?.utf8.elementsEqual($1.utf8) ?? false }),
                let query = target.query
            else { return nil }
            for item in query.split(separator: "&") where item.hasPrefix(queryName + "=") {
                return Self.decoded(item.dropFirst(queryName.count + 1))
            }
            return nil
        }
        let given = target.segments
        guard given.count == segments.count else { return nil }
        var id: String?
        for (want, got) in zip(segments, given) {
            if let want {
                // Octets, as RFC 3986 compares paths: String's == would also normalise Unicode, at
                // a cost the tap paid on every request.
                guard want.utf8.elementsEqual(got.utf8) else { return nil }
            } else {
                guard !got.isEmpty else { return nil }
                id = Self.decoded(got)
            }
        }
        return id
    }

    private static func decoded(_ text: Substring) -> String? {
        let value = String(text)
        // Foundation's decoding is dear and an ID without `%` decodes to itself.
        guard value.utf8.contains(UInt8(ascii: "%")) else { return value }
        return value.removingPercentEncoding ?? value
    }
}
