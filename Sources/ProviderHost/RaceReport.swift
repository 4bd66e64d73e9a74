import Foundation
import ProviderEvents
import ProviderVocabulary

/// One ThreadSanitizer "data race" report from the host's stderr, reduced to what a customer
/// needs: the two accesses' lines in their own file, and which was a write.
public struct RaceReport: Sendable, Equatable {
    public struct Access: Sendable, Equatable {
        public var isWrite: Bool
        /// The access's line in the customer's file; nil when its stack never enters that file.
        public var line: Int?
        /// Which of the customer's files the line is in (its name as built).
        public var file: String? = nil
    }

    public var current: Access
    public var previous: Access

    /// The two lines, lowest first: what makes two reports of one race the same.
    public var lines: [Int] { [current.line, previous.line].compactMap { $0 }.sorted() }

    /// The first line of a report this reads: a race on memory, or on a Swift variable (whose
    /// accesses Swift marks, and which the sanitizer may report either way).
    public static func starts(_ line: Substring) -> Bool {
        line.contains("WARNING: ThreadSanitizer: data race")
            || line.contains("WARNING: ThreadSanitizer: Swift access race")
    }

    /// Reads a report's lines (from its "WARNING: ThreadSanitizer: …" to its "SUMMARY"); frames
    /// are matched to the customer's file by `fileName`.
    public static func parse(_ lines: [Substring], fileName: String) -> RaceReport? {
        parse(lines, fileNames: [fileName])
    }

    /// How an access starts in a report: a memory access by its size ("Previous write of size
    /// 8"), a Swift variable's by its kind ("Modifying access of Swift variable").
    private static let accessStarts: [(prefix: String, isWrite: Bool)] = [
        ("Read of size", false), ("Write of size", true), ("Previous read of size", false),
        ("Previous write of size", true), ("Atomic write of size", true), ("Atomic read of size", false),
        ("Modifying access of", true), ("Read-only access of", false), ("Previous modifying access of", true),
        ("Previous read-only access of", false),
    ]

    /// `parse` for a class in several files: a frame in any of `fileNames` is the class's.
    public static func parse(_ lines: [Substring], fileNames: [String]) -> RaceReport? {
        var accesses: [Access] = []
        // Each access's first frame in the class's files, by its function: a Swift variable's
        // marked access may come without a line, and takes the other's when in the same function.
        var functions: [Substring?] = []
        var collecting: Bool?
        for line in lines {
            let trimmed = line.drop { $0 == " " }
            if let start = accessStarts.first(where: { trimmed.hasPrefix($0.prefix) }) {
                guard accesses.count < 2 else { break }
                accesses.append(Access(isWrite: start.isWrite, line: nil))
                functions.append(nil)
                collecting = true
                continue
            }
            if trimmed.isEmpty {
                collecting = nil
                continue
            }
            // The first frame in the customer's file with a line is the access's line there.
            guard collecting == true, trimmed.hasPrefix("#"), let index = accesses.indices.last,
                accesses[index].line == nil, let file = fileNames.first(where: { trimmed.contains("/" + $0) })
            else { continue }
            if functions[index] == nil { functions[index] = trimmed.split(separator: " ").dropFirst().first ?? "" }
            if let line = Self.line(in: trimmed, fileName: file) {
                accesses[index].line = line
                accesses[index].file = file
            }
        }
        guard accesses.count == 2 else { return nil }
        for (index, other) in [(0, 1), (1, 0)] where accesses[index].line == nil {
            if let function = functions[index], function == functions[other] {
                accesses[index].line = accesses[other].line
                accesses[index].file = accesses[other].file
            }
        }
        return RaceReport(current: accesses[0], previous: accesses[1])
    }

    /// The line of `/…/fileName:LINE:COL` in a frame, nil when the frame is elsewhere.
    static func line(in frame: Substring, fileName: String) -> Int? {
        guard let range = frame.range(of: "/" + fileName + ":") else { return nil }
        return Int(frame[range.upperBound...].prefix { $0.isNumber })
    }

    /// The breach, in words: "data race: File.swift:63 writes authToken while File.swift:34 reads
    /// it (…)"; each line is named with its file (`fileName`, nil for bare "line N"), since a class
    /// may come in several files. `source` is the customer's text, for the name of what was written.
    public func breach(source: String, fileName: String? = nil) -> ContractBreach {
        var named = self
        named.current.file = fileName
        named.previous.file = fileName
        return named.breach(sources: [fileName ?? "": source])
    }

    /// The breach for a class in several files: `sources` holds each file's text by its name as built.
    public func breach(sources: [String: String]) -> ContractBreach {
        func text(_ access: Access) -> Substring? {
            guard let line = access.line, let source = sources[access.file ?? ""] else { return nil }
            let textLines = source.split(separator: "\n", omittingEmptySubsequences: false)
            return line >= 1 && line <= textLines.count ? textLines[line - 1] : nil
        }
        let write = current.isWrite ? current : previous
        let other = current.isWrite ? previous : current
        let variable =
            text(write).flatMap(Self.assignedName) ?? text(other).flatMap(Self.assignedName)
            ?? "the same state"
        // The reference: "Implementations of this protocol must be thread-safe."
        let why = "(the SDK calls from several threads)"
        func at(_ access: Access) -> String {
            let line = access.line ?? 0
            return access.file.flatMap { $0.isEmpty ? nil : "\($0):\(line)" } ?? "line \(line)"
        }
        let sentence: String
        switch (write.line, other.line) {
        case (let w?, let o?) where w == o && write.file == other.file:
            sentence = "data race: \(at(write)) touches \(variable) from two threads at once \(why)"
        case (.some, .some):
            sentence =
                "data race: \(at(write)) writes \(variable) while \(at(other)) \(other.isWrite ? "writes" : "reads") it \(why)"
        case (.some, nil):
            sentence = "data race: \(at(write)) and code outside the file touch \(variable) from two threads \(why)"
        case (nil, .some):
            sentence = "data race: \(at(other)) and code outside the file touch \(variable) from two threads \(why)"
        case (nil, nil):
            sentence = "data race in code the class calls, outside the file \(why)"
        }
        return ContractBreach(.dataRace, sentence, lines: lines)
    }

    /// The stored property a line assigns (`strongSelf.authToken = …` is `authToken`,
    /// `strongSelf->_cachedVehicleToken = …` is `_cachedVehicleToken`).
    static func assignedName(_ line: Substring) -> String? {
        guard let range = line.range(of: #"([A-Za-z_][A-Za-z0-9_]*)\s*=[^=]"#, options: .regularExpression) else {
            return nil
        }
        let name = line[range].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return ["let", "var", "if", "guard"].contains(String(name)) ? nil : String(name)
    }
}
