import Yams

/// Counts the nodes a YAML text expands to, aliases at their anchors' full size, without
/// building the expanded tree, and refuses a text past `limit` at the line of the alias that
/// passed it.
///
/// How: every alias (`*name`) in the text becomes a plain scalar holding a marker and the name,
/// and that text is composed. Its tree shares nothing, so walking it costs the text's size; the
/// walk goes in document order, as Yams resolves aliases, giving each anchor the size of its node
/// and each marker the size of the anchor it names. A `*name` that was no alias (inside a quoted
/// string, say) is counted as one too: the estimate can only come out too high.
struct AliasBudget {
    let limit: Int

    func check(_ yaml: String) throws(YAMLProblem) {
        // Without an alias, the tree is as large as the text: nothing to count.
        guard yaml.utf8.contains(UInt8(ascii: "*")) else { return }
        var marker = "aliasmarker"
        while yaml.contains(marker) { marker += "x" }
        let rewritten = Self.rewrite(yaml, marker: marker)
        let parser: Parser
        let root: Node?
        do {
            parser = try Parser(yaml: rewritten)
            root = try parser.singleRoot()
        } catch let error as YamlError {
            // The text is wrong as it stands; say so, with the aliases as written.
            throw BoundedYAML.problem(error) { $0.replacingOccurrences(of: marker, with: "*") }
        } catch {
            throw YAMLProblem(line: nil, "cannot read YAML: \(error)")
        }
        guard let root else { return }
        // The parser holds the anchors: nodes keep only weak references to them.
        defer { withExtendedLifetime(parser) {} }
        var walk = Walk(marker: marker, limit: limit)
        _ = try walk.size(of: root)
    }

    /// `*name` (libyaml's anchor characters: letters, digits, - and _) as `markername`.
    static func rewrite(_ yaml: String, marker: String) -> String {
        let star = UInt8(ascii: "*")
        let bytes = Array(yaml.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 4)
        for (index, byte) in bytes.enumerated() {
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if byte == star && isAnchorCharacter(next) {
                out.append(contentsOf: marker.utf8)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isAnchorCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    private struct Walk {
        let marker: String
        let limit: Int
        /// Each anchor's expanded size, as last defined before the point the walk is at.
        var sizes: [String: Int] = [:]

        mutating func size(of node: Node) throws(YAMLProblem) -> Int {
            var total = 1
            switch node {
            case .scalar(let scalar):
                if scalar.string.hasPrefix(marker) {
                    // An alias to no anchor (yet) is Yams' error to report.
                    total = sizes[String(scalar.string.dropFirst(marker.count))] ?? 1
                }
            case .sequence(let sequence):
                for child in sequence {
                    total += try size(of: child)
                    try check(total, child)
                }
            case .mapping(let mapping):
                for (key, value) in mapping {
                    total += try size(of: key)
                    try check(total, key)
                    total += try size(of: value)
                    try check(total, value)
                }
            case .alias:
                break
            }
            try check(total, node)
            if let anchor = node.anchor { sizes[anchor.rawValue] = total }
            return total
        }

        /// Sizes stay at most `limit` + the largest anchor (itself at most `limit`), so no sum overflows.
        func check(_ total: Int, _ node: Node) throws(YAMLProblem) {
            guard total > limit else { return }
            throw YAMLProblem(line: node.mark?.line, "aliases expand past \(limit) nodes (an alias bomb?); refused")
        }
    }
}
