/// A header value as the file writes it: literal text with `${NAME}` read from the environment
/// when the file is loaded, so a secret need not be in the file. `$$` is a literal `$`; any other
/// `$` is an error, so `$TOKEN` is not sent as those six characters.
public struct HeaderTemplate: Equatable, Sendable {
    public enum Problem: Error, Equatable {
        case unset(String)
        case badDollar
    }

    public let text: String

    public init(_ text: String) { self.text = text }

    /// The environment variables the value reads, in order.
    public var variables: [String] {
        (try? parts().compactMap { if case .variable(let name) = $0 { name } else { nil } }) ?? []
    }

    public func expand(_ environment: [String: String]) throws(Problem) -> String {
        var out = ""
        for part in try parts() {
            switch part {
            case .literal(let text): out += text
            case .variable(let name):
                guard let value = environment[name] else { throw .unset(name) }
                out += value
            }
        }
        return out
    }

    private enum Part {
        case literal(String)
        case variable(String)
    }

    private func parts() throws(Problem) -> [Part] {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            literal += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            if after.first == "$" {
                literal += "$"
                rest = after.dropFirst()
            } else if after.first == "{", let close = after.firstIndex(of: "}") {
                let name = after[after.index(after: after.startIndex)..<close]
                guard !name.isEmpty, name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
                else { throw .badDollar }
                parts.append(.literal(literal))
                literal = ""
                parts.append(.variable(String(name)))
                rest = after[after.index(after: close)...]
            } else {
                throw .badDollar
            }
        }
        parts.append(.literal(literal + rest))
        return parts
    }
}
