import Foundation
import ProviderVocabulary

/// The customer's provider class as a file: read, checked to be one class conforming to the SDK's
/// protocol, and Google's placeholders filled in the copy that is built (the file itself is never
/// written). Every problem is one `file:line: error: reason`.
public struct ProviderSourceFile: Sendable {
    /// One placeholder filled, as the sample's comments tell a developer to.
    public struct Filling: Sendable, Equatable {
        public var line: Int
        public var placeholder: String
        public var value: String
        /// The file's name, where a class comes in several.
        public var file: String = ""
    }

    /// The language of the class's files, told by their extension.
    public enum Language: Sendable, Equatable {
        case swift
        /// `.m` files (and `.h` headers given with them), built with the Objective-C runtime.
        case objectiveC
        /// An Android `AuthTokenFactory` in `.java` files, built with javac and run on a JVM.
        case java
        /// The same in `.kt` files, built with Debian's kotlinc (1.3) against the same stand-ins.
        case kotlin

        public init?(path: String) {
            switch (path as NSString).pathExtension {
            case "swift": self = .swift
            case "m", "h": self = .objectiveC
            case "java": self = .java
            case "kt": self = .kotlin
            default: return nil
            }
        }

        /// Whether the class runs on a JVM, as an Android `AuthTokenFactory`.
        public var isJVM: Bool { self == .java || self == .kotlin }

        var name: String {
            switch self {
            case .swift: "Swift"
            case .objectiveC: "Objective-C"
            case .java: "Java"
            case .kotlin: "Kotlin"
            }
        }
    }

    /// One of the class's files, as it is built.
    public struct Part: Sendable, Equatable {
        public let path: String
        /// The file's text with the placeholders filled.
        public let buildText: String
        public var fileName: String { (path as NSString).lastPathComponent }
    }

    public let path: String
    public let role: ProviderKind.Role
    public let className: String
    /// The text that is built: the file's, with the placeholders filled.
    public let buildText: String
    public let fillings: [Filling]
    public let language: Language
    /// Every file given, the class's own first.
    public let parts: [Part]
    /// The JVM package the class is declared in (`package com.example;`), nil in the default one
    /// and for Swift and Objective-C.
    public var packageName: String? = nil

    /// The classes a JVM class is nested in, outermost first (`class App { static class Factory … }`).
    public var enclosingClasses: [String] = []

    /// The name the class is found by at run time: the JVM's binary name (`com.example.App$Factory`),
    /// or the class's own.
    public var qualifiedClassName: String {
        let nested = (enclosingClasses + [className]).joined(separator: "$")
        return packageName.map { "\($0).\(nested)" } ?? nested
    }

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
        try read([path], role: role, className: className, providerURL: providerURL)
    }

    /// Reads the files of one class (a flag repeated, for a class with helper files of its own):
    /// one language, told by the extensions; the class is looked for in all of them, and for
    /// Objective-C also in the headers they import from their own folders, as Xcode finds them.
    public static func read(
        _ paths: [String], role: ProviderKind.Role, className: String? = nil, providerURL: String
    ) throws(SourceProblem) -> ProviderSourceFile {
        guard let first = paths.first else {
            throw SourceProblem(path: "", line: nil, reason: "no source file was given")
        }
        guard let language = Language(path: first) else {
            throw SourceProblem(
                path: first, line: nil,
                reason: "not a .swift, .m, .java or .kt file: the extension tells tokendash the class's language")
        }
        var texts: [(path: String, text: String)] = []
        for path in paths {
            guard Language(path: path) == language else {
                throw SourceProblem(
                    path: path, line: nil,
                    reason:
                        "is not \(language.name) like \((first as NSString).lastPathComponent): a class's files are in one language"
                )
            }
            guard !texts.contains(where: { $0.path == path }) else { continue }
            texts.append((path, try text(of: path, language: language)))
        }
        var classes: [ConformingClass] = []
        for (path, text) in texts { classes += ConformingClass.find(in: text, language: language, path: path) }
        if language == .objectiveC {
            for header in ImportedHeaders.beside(texts.map(\.path), texts: texts.map(\.text)) {
                guard let text = try? Self.text(of: header, language: language) else { continue }
                classes += ConformingClass.find(in: text, language: language, path: header)
            }
        }
        let chosen = try choose(
            classes, role: role, className: className, language: language, path: first, fileCount: texts.count)
        var parts: [Part] = []
        var fillings: [Filling] = []
        for (path, text) in texts {
            let (filled, filledHere) = Placeholders.fill(
                text, role: role, providerURL: providerURL, language: language)
            let name = (path as NSString).lastPathComponent
            fillings += filledHere.map {
                Filling(line: $0.line, placeholder: $0.placeholder, value: $0.value, file: name)
            }
            parts.append(Part(path: path, buildText: filled))
        }
        // The class's own file first: its name titles the pane, its text names a race's variable.
        let mainIndex =
            parts.firstIndex { $0.path == chosen.path }
            ?? parts.firstIndex { ($0.path as NSString).pathExtension != "h" } ?? 0
        parts.insert(parts.remove(at: mainIndex), at: 0)
        return ProviderSourceFile(
            path: parts[0].path, role: role, className: chosen.name, buildText: parts[0].buildText,
            fillings: fillings, language: language, parts: parts, packageName: chosen.packageName,
            enclosingClasses: chosen.enclosing)
    }

    static func text(of path: String, language: Language) throws(SourceProblem) -> String {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw SourceProblem(
                path: path, line: nil, reason: "cannot read the file: \((error as NSError).localizedDescription)")
        }
        guard data.count <= maximumBytes else {
            throw SourceProblem(path: path, line: nil, reason: "larger than 1 MiB, so not a provider class")
        }
        guard let text = String(data: data, encoding: .utf8), !data.contains(0) else {
            throw SourceProblem(path: path, line: 1, reason: "not UTF-8 text, so not a \(language.name) source file")
        }
        return text
    }

    /// The class of `role` among `classes`, or why there is none to take.
    static func choose(
        _ classes: [ConformingClass], role: ProviderKind.Role, className: String?, language: Language, path: String,
        fileCount: Int
    ) throws(SourceProblem) -> ConformingClass {
        let wanted = StandInSDK.protocolName(role, language: language)
        let mine = classes.filter { $0.protocolName == wanted }
        if let className {
            guard let match = mine.first(where: { $0.name == className }) else {
                let found = mine.isEmpty ? "none does" : "found " + mine.map(\.name).joined(separator: ", ")
                let conforming = language.isJVM ? "implementing" : "conforming to"
                throw SourceProblem(
                    path: path, line: 1, reason: "no class \(className) \(conforming) \(wanted); \(found)")
            }
            return match
        }
        if mine.count == 1 { return mine[0] }
        if mine.count > 1 {
            let list = mine.map { "\($0.name) at line \($0.line)" }.joined(separator: ", ")
            let flag = role == .driver ? "--driver-class" : "--consumer-class"
            throw SourceProblem(
                path: mine[1].path, line: mine[1].line,
                reason: "\(mine.count) classes conform to \(wanted) (\(list)); choose one with \(flag) NAME")
        }
        if let other = classes.first {
            let otherRole: ProviderKind.Role = role == .driver ? .consumer : .driver
            throw SourceProblem(
                path: other.path, line: other.line,
                reason:
                    "\(other.name) \(language.isJVM ? "implements" : "conforms to") \(other.protocolName), a \(otherRole.rawValue) provider; pass it with --\(otherRole.rawValue)-source"
            )
        }
        let sdk = role == .driver ? "the Driver SDK's" : "the Consumer SDK's"
        let files = fileCount > 1 ? "these files" : "this file"
        let reason =
            switch language {
            case .swift:
                "no class conforming to \(wanted) (\(sdk) token provider protocol) was found; is this the provider's Swift file?"
            case .java, .kotlin:
                "no class implementing \(wanted) (\(sdk) token factory for Android) was found in \(files); is this the factory's \(language.name) file?"
            case .objectiveC:
                "no @interface conforming to <\(wanted)> (\(sdk) token provider protocol) was found in \(files) or the headers \(fileCount > 1 ? "they import" : "it imports") from beside \(fileCount > 1 ? "them" : "it")"
            }
        throw SourceProblem(path: path, line: 1, reason: reason)
    }
}

/// Why a provider source cannot be used, at its place in the file, as a compiler would say it.
public struct SourceProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var reason: String
    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): error: \(reason)" }
}

/// A class declaration whose inheritance list names one of the SDKs' two protocols (for Java,
/// one of the Android SDKs' two `AuthTokenFactory` interfaces).
struct ConformingClass: Equatable {
    var name: String
    var protocolName: String
    var line: Int
    /// The file it is declared in.
    var path: String = ""
    /// Its JVM package (Java or Kotlin), from the file's `package` line.
    var packageName: String? = nil
    /// The classes it is declared in, outermost first (JVM only).
    var enclosing: [String] = []
    /// Where its declaration starts in the text, in UTF-16 units.
    var offset = 0

    /// The classes in `text` conforming to GMTDAuthorization or GMTCAuthorization (Java:
    /// implementing an `AuthTokenFactory`), in order. A scan of declarations, not a parse:
    /// comments and strings are blanked first so a mention in either is not taken for a class.
    /// Swift's `class Name: …, GMTDAuthorization {`; Objective-C's
    /// `@interface Name : Super <…, GMTDAuthorization>`; Java's `class Name implements … {`.
    static func find(in text: String, language: ProviderSourceFile.Language = .swift, path: String = "")
        -> [ConformingClass]
    {
        let code = CodeText.blankingCommentsAndStrings(text)
        if language.isJVM { return findJVM(in: code, language: language, path: path) }
        // The inheritance list may run over several lines, up to the body's brace (Swift) or the
        // protocol list's closing bracket (Objective-C).
        let expression =
            language == .swift
            ? #"\bclass\s+([A-Za-z_][A-Za-z0-9_]*)\s*:([^{]*)\{"#
            : #"@interface\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*[A-Za-z_][A-Za-z0-9_]*\s*<([^>]*)>"#
        return matches(of: expression, in: code, path: path) { inherits in
            ["GMTDAuthorization", "GMTCAuthorization"].filter { inherits.contains($0) }
        }
    }

    /// Java's and Kotlin's factories: the interface named in `implements` (Kotlin: after the
    /// class's `:`) is the driver's when written `AuthTokenContext.AuthTokenFactory` or imported
    /// from the Driver SDK's package, the consumer's when imported from the Consumer SDK's
    /// `consumer.auth` (as Google's samples import them); a bare `AuthTokenFactory` imported from
    /// neither is taken as either.
    private static func findJVM(in code: String, language: ProviderSourceFile.Language, path: String)
        -> [ConformingClass]
    {
        let driverPackage = StandInSDK.androidDriverPackage
        let consumerPackage = StandInSDK.androidConsumerPackage
        let imports =
            code.contains("import \(consumerPackage).AuthTokenFactory")
            ? "consumer" : code.contains("import \(driverPackage).AuthTokenContext") ? "driver" : "either"
        let package = firstCapture(#"(?m)^\s*package\s+([A-Za-z_][A-Za-z0-9_.]*)\s*;?\s*$"#, in: code)
        func roles(_ inherits: [String]) -> [String] {
            var roles: [ProviderKind.Role] = []
            for name in inherits.map({ $0.replacingOccurrences(of: " ", with: "") }) {
                if name == "AuthTokenContext.AuthTokenFactory"
                    || name == "\(driverPackage).AuthTokenContext.AuthTokenFactory"
                {
                    roles.append(.driver)
                } else if name == "\(consumerPackage).AuthTokenFactory" {
                    roles.append(.consumer)
                } else if name == "AuthTokenFactory" {
                    roles +=
                        imports == "driver" ? [.driver] : imports == "consumer" ? [.consumer] : [.driver, .consumer]
                }
            }
            return roles.map { StandInSDK.protocolName($0, language: language) }
        }
        let found =
            language == .java
            ? matches(
                of: #"\bclass\s+([A-Za-z_][A-Za-z0-9_]*)[^{;]*?\bimplements\s+([^{]*)\{"#, in: code, path: path,
                protocols: roles)
            // A header runs to its body's brace, never across another class (one without a body).
            : matches(of: #"\bclass\s+([A-Za-z_][A-Za-z0-9_]*)((?:(?!\bclass\b)[^{])*)\{"#, in: code, path: path) {
                roles(kotlinSupertypes($0.joined(separator: ",")))
            }
        let declarations = typeDeclarations(in: code)
        return found.map { found in
            var found = found
            found.packageName = package
            found.enclosing = enclosingNames(of: found, among: declarations)
            return found
        }
    }

    /// A type declared in a JVM file: its name, where its declaration starts, and its body's
    /// braces (nil for a Kotlin class without a body).
    struct TypeDeclaration {
        var name: String
        var start: Int
        var body: Range<Int>?
    }

    /// Every class, interface, enum, record and object in `code` (blanked of comments and
    /// strings), with the extent of its body found by matching braces.
    static func typeDeclarations(in code: String) -> [TypeDeclaration] {
        let characters = Array(code.utf16)
        guard
            let pattern = try? NSRegularExpression(
                pattern: #"\b(?:class|interface|enum|record|object)\s+([A-Za-z_][A-Za-z0-9_]*)"#)
        else { return [] }
        let matches = pattern.matches(in: code, range: NSRange(location: 0, length: characters.count))
        var declarations: [TypeDeclaration] = []
        for (index, match) in matches.enumerated() {
            let name = (code as NSString).substring(with: match.range(at: 1))
            let start = match.range.location
            // Its body is the first brace before the next declaration; none, and it has no body.
            let limit = index + 1 < matches.count ? matches[index + 1].range.location : characters.count
            var body: Range<Int>?
            if let open = (match.range.upperBound..<limit).first(where: { characters[$0] == 0x7B }) {
                var depth = 0
                for position in open..<characters.count {
                    if characters[position] == 0x7B { depth += 1 }
                    if characters[position] == 0x7D {
                        depth -= 1
                        if depth == 0 {
                            body = open..<position
                            break
                        }
                    }
                }
            }
            declarations.append(TypeDeclaration(name: name, start: start, body: body))
        }
        return declarations
    }

    /// The names of the types whose bodies hold `found`'s declaration, outermost first.
    static func enclosingNames(of found: ConformingClass, among declarations: [TypeDeclaration]) -> [String] {
        // Both scans match from the same `class` keyword, so the declaration starts where the class was found.
        guard let own = declarations.first(where: { $0.start == found.offset }) else { return [] }
        return declarations.filter { $0.body?.contains(own.start) == true }
            .sorted { ($0.body?.lowerBound ?? 0) < ($1.body?.lowerBound ?? 0) }.map(\.name)
    }

    /// A Kotlin class header's supertypes: what follows the `:` outside the primary
    /// constructor's parentheses, split at its commas, each without its constructor call.
    static func kotlinSupertypes(_ header: String) -> [String] {
        var depth = 0
        var list: Substring?
        for index in header.indices {
            switch header[index] {
            case "(": depth += 1
            case ")": depth -= 1
            case ":" where depth == 0:
                list = header[header.index(after: index)...]
            default: continue
            }
            if list != nil { break }
        }
        guard let list else { return [] }
        var names: [String] = []
        var current = ""
        depth = 0
        for character in list {
            if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
            if character == ",", depth == 0 {
                names.append(current)
                current = ""
            } else if depth == 0, character != ")" {
                current.append(character)
            }
        }
        names.append(current)
        return names.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// Each declaration `expression` finds (its first group the name, its second the list it
    /// inherits from), once for each protocol `protocols` picks from that list.
    private static func matches(
        of expression: String, in code: String, path: String, protocols: ([String]) -> [String]
    ) -> [ConformingClass] {
        guard let pattern = try? NSRegularExpression(pattern: expression) else { return [] }
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
            for proto in protocols(inherits) {
                found.append(
                    ConformingClass(
                        name: String(code[nameRange]), protocolName: proto, line: line, path: path,
                        offset: match.range.location))
            }
        }
        return found
    }

    private static func firstCapture(_ expression: String, in code: String) -> String? {
        guard let pattern = try? NSRegularExpression(pattern: expression),
            let match = pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)),
            let range = Range(match.range(at: 1), in: code)
        else { return nil }
        return String(code[range])
    }
}

/// The headers an Objective-C file imports with quotes that sit in its own folder: where its
/// class's `@interface` often is (the consumer sample's `#import "SampleAccessTokenProvider.h"`).
enum ImportedHeaders {
    static func beside(_ paths: [String], texts: [String]) -> [String] {
        guard
            let pattern = try? NSRegularExpression(
                pattern: #"^\s*#\s*(?:import|include)\s+"([^"]+\.h)""#, options: .anchorsMatchLines)
        else { return [] }
        var headers: [String] = []
        for (path, text) in zip(paths, texts) {
            let folder = (path as NSString).deletingLastPathComponent
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let header = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(String(text[range]))
                if !paths.contains(header), !headers.contains(header), FileManager.default.fileExists(atPath: header) {
                    headers.append(header)
                }
            }
        }
        return headers
    }
}
