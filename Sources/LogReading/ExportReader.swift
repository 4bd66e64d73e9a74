import Foundation
import JSONValues
import ProviderVocabulary

/// Reads Cloud Logging exports of Fleet Engine's logs, one input after another, into an
/// `ExportTally`: any shape (`EntrySplitter`), gzip or not (by its magic bytes, RFC 1952 §2.3.1:
/// 0x1f 0x8b), a file, a folder as a Cloud Storage sink lays it out, or stdin ("-").
///
/// Each entry is counted once: the same `insertId` again is a duplicate; a split entry counts at
/// the first of its parts read; a restricted entry is its parent's. Every problem is one line
/// (`LogProblem`) and everything read before it stays counted.
public struct ExportReader {
    /// Problems kept as lines; more are only counted (in `skipped`).
    public static let maxProblemLines = 100

    public private(set) var tally = ExportTally()
    public private(set) var skipped: [SkipReason: Int] = [:]
    public private(set) var problems: [LogProblem] = []
    public private(set) var unknownTypes = BoundedTally()
    public private(set) var unknownFields = BoundedTally()
    /// Objects that were LogEntries (counted or not): none in any input means no export at all.
    public private(set) var recognized = 0
    /// Whether any input held a JSON container (so "[]" is an empty export, not "not an export").
    public private(set) var sawContainer = false
    /// Bytes read after any gzip was inflated.
    public private(set) var bytesRead = 0

    /// Told after each chunk read: bytes read so far and entries counted (a long read's progress).
    public var onChunk: ((_ bytes: Int, _ entries: Int) -> Void)?
    /// Told of each entry as it is counted (`--watch`): never a duplicate, a split's later part or
    /// a restricted half.
    public var onEntry: ((LogEntry) -> Void)?

    private let maxObjectBytes: Int
    private var insertIDs = RecentSet(capacity: 1 << 20)
    private var splitUIDs = RecentSet(capacity: 1 << 16)
    /// What reads the entries the splitter hands on as bytes (those it did not read in place).
    private var decoder = LogEntryByteDecoder()

    /// Whether gzip inputs can be inflated in this build (not under the fuzz build's bare swiftc).
    public static var gzipAvailable: Bool {
        #if canImport(CompressNIO)
            true
        #else
            false
        #endif
    }

    /// Whether entries whole in a chunk are read in place (`EntrySplitter.readsEntries`); tests
    /// turn it off to check that both ways read the same.
    let readsInPlace: Bool

    public init(maxObjectBytes: Int = EntrySplitter.defaultMaxObjectBytes, readsInPlace: Bool = true) {
        self.maxObjectBytes = maxObjectBytes
        self.readsInPlace = readsInPlace
    }

    /// Export files in a folder: JSON, JSON lines, and either gzip-compressed.
    static let exportExtensions = [".json", ".jsonl", ".ndjson", ".json.gz", ".jsonl.gz", ".ndjson.gz", ".gz"]

    /// Reads `path`: "-" for stdin, a folder (recursively, in path order, which is time order in
    /// a sink's LOG_ID/YYYY/MM/DD/HH:00:00_HH:59:59_S0.json layout,
    /// https://cloud.google.com/logging/docs/export/storage), or a file.
    public mutating func read(path: String) {
        var isFolder: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            readFolder(path)
            return
        }
        do {
            var source = try FileChunkSource(path: path)
            read(&source, name: path)
        } catch {
            note(.unreadable, "\(error)", at: path)
        }
    }

    private mutating func readFolder(_ folder: String) {
        guard let walker = FileManager.default.enumerator(atPath: folder) else {
            note(.unreadable, "the folder cannot be listed", at: folder)
            return
        }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            let full = (folder as NSString).appendingPathComponent(relative)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            files.append(relative)
        }
        for relative in files.sorted() {
            let full = (folder as NSString).appendingPathComponent(relative)
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") { continue }
            guard Self.exportExtensions.contains(where: { name.lowercased().hasSuffix($0) }) else {
                note(.otherFile, "not an export file (.json, .jsonl, .ndjson, or .gz of one)", at: full)
                continue
            }
            read(path: full)
        }
    }

    /// Reads one input's bytes, inflating gzip when its first bytes say so.
    public mutating func read(_ source: inout some ByteChunkSource, name: String) {
        let first: [UInt8]?
        do {
            first = try source.next()
        } catch {
            note(.unreadable, "\(error)", at: name)
            return
        }
        guard let first else { return }
        var prefixed = PrefixedChunkSource(prefix: first, inner: source)
        if first.count >= 2 && first[0] == 0x1F && first[1] == 0x8B {
            #if canImport(CompressNIO)
                do {
                    var inflated = try GzipChunkSource(prefixed)
                    split(&inflated, name: name)
                } catch {
                    note(.gzip, "\(error)", at: name)
                }
            #else
                note(.gzip, "gzip is not available in this build", at: name)
            #endif
            return
        }
        split(&prefixed, name: name)
    }

    private mutating func split(_ source: inout some ByteChunkSource, name: String) {
        var splitter = EntrySplitter(maxObjectBytes: maxObjectBytes)
        splitter.readsEntries = readsInPlace
        // Each event handled as it comes: an entry is counted without being queued first.
        while true {
            let chunk: [UInt8]?
            do {
                chunk = try source.next()
            } catch {
                splitter.finish { handle($0, name: name) }
                if case .gzip = error {
                    note(.gzip, "\(error)", at: name)
                } else {
                    note(.unreadable, "\(error)", at: name)
                }
                sawContainer = sawContainer || splitter.sawContainer
                return
            }
            guard let chunk else { break }
            bytesRead += chunk.count
            splitter.feed(chunk) { handle($0, name: name) }
            onChunk?(bytesRead, tally.entries)
        }
        splitter.finish { handle($0, name: name) }
        sawContainer = sawContainer || splitter.sawContainer
    }

    private mutating func handle(_ event: EntrySplitter.Event, name: String) {
        switch event {
        case .problem(let reason, let detail, let position):
            note(reason, detail, at: Self.location(name, position))
        case .entry(let outcome, let position):
            accept(outcome, at: { Self.location(name, position) })
        case .object(let bytes, let position):
            switch bytes.withUnsafeBufferPointer({ decoder.decode($0) }) {
            case .success(let outcome):
                accept(outcome, at: { Self.location(name, position) })
            case .failure(let error):
                note(
                    .garbled, "not valid JSON (\(error.reason) at byte \(error.offset) of the entry)",
                    at: Self.location(name, position))
            }
        }
    }

    /// One decoded object: counted, or skipped with its reason.
    mutating func accept(_ outcome: LogEntryDecoder.Outcome, at location: () -> String) {
        switch outcome {
        case .skipped(let reason, let detail):
            if reason != .notAnEntry { recognized += 1 }
            note(reason, detail, at: location())
        case .entry(let entry, let fields, let type):
            recognized += 1
            for field in fields { unknownFields.count(field) }
            if let type { unknownTypes.count(type) }
            if entry.isRestricted {
                note(.restricted, "restricted entry of \(entry.parentInsertID ?? "a parent not named")", at: location())
                return
            }
            if let id = entry.insertID, !insertIDs.insert(id) {
                note(.duplicate, "insertId \(id.prefix(60)) again", at: location())
                return
            }
            if let split = entry.split, !splitUIDs.insert(split.uid) {
                note(
                    .splitPart, "part \(split.index + 1) of \(split.total) of split \(split.uid.prefix(60))",
                    at: location())
                return
            }
            tally.add(entry)
            onEntry?(entry)
        }
    }

    private mutating func note(_ reason: SkipReason, _ detail: String, at location: String) {
        skipped[reason, default: 0] += 1
        // Counted-once skips (duplicates, split parts, restricted halves) are the export's nature,
        // not its damage: counted, not lined.
        guard ![.duplicate, .splitPart, .restricted].contains(reason) else { return }
        if problems.count < Self.maxProblemLines {
            problems.append(LogProblem(location: location, reason: reason, detail: detail))
        }
    }

    /// "FILE:LINE", or "FILE:byte N" for what starts on line 1 past its first byte (inside a
    /// one-line array, or the second of objects on one line).
    static func location(_ name: String, _ position: EntrySplitter.Position) -> String {
        position.line == 1 && position.offset > 0 ? "\(name):byte \(position.offset)" : "\(name):\(position.line)"
    }
}

/// Names counted, at most `limit` distinct ones; more are counted under "(other)".
public struct BoundedTally: Sendable, Equatable {
    public static let limit = 100
    public private(set) var counts: [String: Int] = [:]

    public init() {}

    public mutating func count(_ name: String) {
        if counts[name] != nil || counts.count < Self.limit {
            counts[name, default: 0] += 1
        } else {
            counts["(other)", default: 0] += 1
        }
    }
}

/// The strings seen lately, in bounded memory: two generations of hashes, each up to `capacity`;
/// when the newer fills, the older is dropped. A repeat within the last `capacity` to
/// 2 × `capacity` insertions is caught (a million entries is minutes of a 10,000-vehicle fleet,
/// and the same export read twice, or files that overlap, repeat within that); 64-bit hashes
/// make a false repeat a one-in-10^7 event at that size.
struct RecentSet: Sendable {
    let capacity: Int
    private var newer = HashSlots()
    private var older = HashSlots()

    init(capacity: Int) { self.capacity = capacity }

    /// False when `value` was seen lately.
    mutating func insert(_ value: String) -> Bool {
        let hash = value.hashValue
        if older.contains(hash) { return false }
        guard newer.insert(hash) else { return false }
        if newer.count >= capacity {
            older = newer
            newer = HashSlots()
        }
        return true
    }

    /// Hashes kept by open addressing on their own low bits: they are SipHash's already, where a
    /// `Set<Int>` would hash each again at every lookup (three times an entry).
    struct HashSlots: Sendable {
        private(set) var count = 0
        private var slots = [Int](repeating: 0, count: 1024)

        /// 0 marks a free slot, so a hash of 0 is kept as 1 (one more hash in 2^64 that repeats).
        private static func stored(_ hash: Int) -> Int { hash == 0 ? 1 : hash }

        func contains(_ hash: Int) -> Bool { slots[slot(of: Self.stored(hash))] != 0 }

        /// False when `hash` is kept already.
        mutating func insert(_ hash: Int) -> Bool {
            let hash = Self.stored(hash)
            let index = slot(of: hash)
            guard slots[index] == 0 else { return false }
            slots[index] = hash
            count += 1
            // At most half full, so a probe ends soon.
            if count * 2 > slots.count { grow() }
            return true
        }

        /// Where `hash` is kept, or the free slot where it would go.
        private func slot(of hash: Int) -> Int {
            let mask = slots.count - 1
            var index = hash & mask
            while slots[index] != 0 && slots[index] != hash { index = (index + 1) & mask }
            return index
        }

        private mutating func grow() {
            let old = slots
            slots = [Int](repeating: 0, count: old.count * 2)
            for hash in old where hash != 0 { slots[slot(of: hash)] = hash }
        }
    }
}
