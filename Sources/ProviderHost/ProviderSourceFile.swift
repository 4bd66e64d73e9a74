import FleetAuth
import Foundation

/// The customer's provider class as a file: read, checked to be one class conforming to the SDK's
/// protocol, and Google's placeholders filled in the copy that is built (the file itself is never
/// written). Every problem is one `file:line: error: reason`.
public struct ProviderSourceFile: Sendable {
    /// One placeholder filled, as the sample's comments tell a developer to.
    public struct Filling: Sendable, Equatable {
        public var line: Int
        public var placeholder: String
        public var value: String
    }

    public let path: String
    public let role: ProviderKind.Role
    public let className: String
    /// The text that is built: the file's, with the placeholders filled.
    public let buildText: String
    public let fillings: [Filling]

    /// The file's name, as titles and messages show it.
    public var fileName: String { (path as NSString).lastPathComponent }

    /// The largest file read: a provider class is a page or two.
    public static let maximumBytes = 1 << 20

    /// Reads `path` as the class of `role`; `className` picks one where several conform.
    /// `providerURL` replaces `INSERT_YOUR_TOKEN_PROVIDER_URL`.
    public static func read(
        _ path: String, role: ProviderKind.Role, className: String? = nil,
        providerURL: String
    ) throws(SourceProblem) -> ProviderSourceFile {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw SourceProblem(
                path: path, line: nil, reason: "cannot read the file: \((error as NSError).localizedDescription)")
        }
        guard data.count <= maximumBytes else {
            throw SourceProblem(path: path, line: nil, reason: "larger than 1 MiB, so not a provider class")
        }
        guard let text = String(data: data, encoding: .utf8), !data.contains(0) else {
            throw SourceProblem(path: path, line: 1, reason: "not UTF-8 text, so not a Swift source file")
        }
        let classes = ConformingClass.find(in: text)
        let wanted = StandInSDK.protocolName(role)
        let mine = classes.filter { $0.protocolName == wanted }
        let chosen: ConformingClass
        if let className {
            guard let match = mine.first(where: { $0.name == className }) else {
                let found = mine.isEmpty ? "none does" : "found " + mine.map(\.name).joined(separator: ", ")
                throw SourceProblem(
                    path: path, line: 1, reason: "no class \(className) conforming to \(wanted); \(found)")
            }
            chosen = match
        } else if mine.count == 1 {
            chosen = mine[0]
        } else if mine.count > 1 {
            let list = mine.map { "\($0.name) at line \($0.line)" }.joined(separator: ", ")
            let flag = role == .driver ? "--driver-class" : "--consumer-class"
            throw SourceProblem(
                path: path, line: mine[1].line,
                reason: "\(mine.count) classes conform to \(wanted) (\(list)); choose one with \(flag) NAME")
        } else if let other = classes.first {
            let otherRole: ProviderKind.Role = role == .driver ? .consumer : .driver
            throw SourceProblem(
                path: path, line: other.line,
                reason:
                    "\(other.name) conforms to \(other.protocolName), a \(otherRole.rawValue) provider; pass it with --\(otherRole.rawValue)-source"
            )
        } else {
            let sdk = role == .driver ? "the Driver SDK's" : "the Consumer SDK's"
            throw SourceProblem(
                path: path, line: 1,
                reason:
                    "no class conforming to \(wanted) (\(sdk) token provider protocol) was found; is this the provider's Swift file?"
            )
        }
        let (filled, fillings) = Placeholders.fill(text, role: role, providerURL: providerURL)
        return ProviderSourceFile(path: path, role: role, className: chosen.name, buildText: filled, fillings: fillings)
    }
}

/// Why a provider source cannot be used, at its place in the file, as a compiler would say it.
public struct SourceProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var reason: String
    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): error: \(reason)" }
}

/// A class declaration whose inheritance list names one of the SDKs' two protocols.
struct ConformingClass: Equatable {
    var name: String
    var protocolName: String
    var line: Int

    /// The classes in `text` conforming to GMTDAuthorization or GMTCAuthorization, in order. A
    /// scan of declarations, not a parse: comments and strings are blanked first so a mention in
    /// either is not taken for a class.
    static func find(in text: String) -> [ConformingClass] {
        let code = CodeText.blankingCommentsAndStrings(text)
        // The inheritance list may run over several lines, up to the body's brace.
        guard let pattern = try? NSRegularExpression(pattern: #"\bclass\s+([A-Za-z_][A-Za-z0-9_]*)\s*:([^{]*)\{"#)
        else { return [] }
        let whole = NSRange(code.startIndex..., in: code)
        var found: [ConformingClass] = []
        for match in pattern.matches(in: code, range: whole) {
            guard let nameRange = Range(match.range(at: 1), in: code),
                let listRange = Range(match.range(at: 2), in: code),
                let declaration = Range(match.range, in: code)
            else { continue }
            let inherits = code[listRange].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let line = code[..<declaration.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
            for proto in ["GMTDAuthorization", "GMTCAuthorization"] where inherits.contains(proto) {
                found.append(ConformingClass(name: String(code[nameRange]), protocolName: proto, line: line))
            }
        }
        return found
    }
}
