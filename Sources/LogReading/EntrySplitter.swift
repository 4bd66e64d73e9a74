import JSONValues
import ProviderVocabulary

/// Splits an export's byte stream into the JSON objects that are its entries, whatever the shape:
/// a JSON array of entries (`gcloud logging read --format=json`, the Logs Explorer's download),
/// objects one per line or simply concatenated (a Cloud Storage sink's files, `jq -c`, a
/// BigQuery export as JSON lines), or a wrapper object holding them in a list (fleet-debugger's
/// datasets keep them under `rawLogs`, src/localStorage.js `ensureCorrectFormat`; the Logging
/// API's `entries.list` answer under `entries`).
///
/// Hand-written because no maintained streaming JSON parser resolves for this package (the
/// machine's package list has none; Foundation's `JSONSerialization` and `JSONDecoder` want the
/// whole document), and the bound matters more than generality: the splitter only tracks strings,
/// escapes and nesting, holds one entry at a time (at most `maxObjectBytes`, the rest of a larger
/// object skipped unheld), and each object it hands on is decoded by `LogEntryByteDecoder`, so a
/// mistake inside an entry is the decoder's to name.
///
/// Damage is resynchronized where JSON itself says an entry ended: a raw newline inside a string
/// (never valid JSON, so a line cut mid-string ends there) and a `{` where no value may start
/// (after neither `:`, `,` nor `[`: the previous entry was cut off and this one begins).
public struct EntrySplitter: Sendable {
    /// Where something starts: its line (from 1) and its byte offset (from 0).
    public struct Position: Sendable, Equatable {
        public var line: Int
        public var offset: Int
    }

    public enum Event: Sendable, Equatable {
        case object([UInt8], Position)
        /// An entry read in place by `LogEntryByteDecoder` (with `readsEntries`), as it would read
        /// `.object`'s bytes.
        case entry(LogEntryDecoder.Outcome, Position)
        case problem(SkipReason, String, Position)
    }

    /// Whether an entry that lies whole in a chunk is read there by `LogEntryByteDecoder` (one pass, no
    /// copy) instead of being copied out byte by byte for the reader to scan. What is not whole in
    /// the chunk, not JSON, or a wrapper goes the careful way, so every problem is found and said
    /// as before. Off, the splitter hands on bytes alone (its own tests read those).
    public var readsEntries = false

    /// 16 MiB: a split Fleet Engine entry is under 256 KB (Cloud Logging's limit, which is why
    /// Fleet Engine splits; split-logs guide), so an object 64 times that is no entry of theirs,
    /// and holding it would let one line set the reader's memory.
    public static let defaultMaxObjectBytes = 16 << 20

    /// Keys of a wrapper object whose array holds the entries (normalized, as `LogKeys`).
    static let wrapperKeys: Set<String> = ["rawlogs", "entries", "logentries", "logs"]

    public let maxObjectBytes: Int

    private var line = 1
    private var offset = 0
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The last byte outside strings that was not white space.
    private var previous: UInt8 = 0
    private var skippingLine = false

    /// What the top level holds now: an array of entries, or an object (an entry or a wrapper).
    private var topIsArray = false
    private var topIsObject = false
    /// Inside a wrapper's array: its entries are the objects at depth 2.
    private var inWrapperArray = false
    /// The top-level object's keys, read as they pass (only at depth 1).
    private var expectKey = false
    private var collectingKey = false
    private var key: [UInt8] = []
    private var lastKey = ""

    /// Whether each open container is an array (true) or an object, outermost first; kept for
    /// the first `stackLimit` levels only, so a hostile nesting cannot grow it without bound.
    private var arrays: [Bool] = []
    static let stackLimit = 1024

    private var capturing = false
    private var captureDepth = 0
    private var captureStart = Position(line: 1, offset: 0)
    private var captureSize = 0
    private var buffer: [UInt8] = []

    /// Whether any top-level JSON container was seen (an empty `[]` is an empty export).
    public private(set) var sawContainer = false

    public init(maxObjectBytes: Int = EntrySplitter.defaultMaxObjectBytes) {
        self.maxObjectBytes = maxObjectBytes
    }

    /// The depth at which `{` begins an entry in the container open now.
    private var entryDepth: Int { inWrapperArray ? 2 : topIsArray ? 1 : 0 }

    public mutating func feed(_ chunk: [UInt8], emit: (Event) -> Void) {
        chunk.withUnsafeBufferPointer { bytes in
            var index = 0
            while index < bytes.count {
                // The bulk of an export is inside strings (and a skipped line is skipped whole):
                // their plain bytes go by in runs, not one `step` each.
                if skippingLine || (inString && !escaped && !collectingKey) {
                    var end = index
                    while end < bytes.count {
                        let byte = bytes[end]
                        if byte == 0x0A || (!skippingLine && (byte == 0x22 || byte == 0x5C)) { break }
                        end += 1
                    }
                    if end > index {
                        if !skippingLine { append(UnsafeBufferPointer(rebasing: bytes[index..<end])) }
                        offset += end - index
                        index = end
                        continue
                    }
                }
                if readsEntries, !inString, !skippingLine, !capturing, bytes[index] == 0x7B,
                    readWhole(UnsafeBufferPointer(rebasing: bytes[index...]), emit)
                {
                    index += lastReadLength
                    continue
                }
                // Numbers and literals outside strings (an entry's coordinates are most of its
                // structure) are only kept: in runs too, as `structuralByte` keeps each one.
                if !inString && !skippingLine && depth > 0 && Self.isPlain(bytes[index]) {
                    var end = index + 1
                    while end < bytes.count && Self.isPlain(bytes[end]) { end += 1 }
                    append(UnsafeBufferPointer(rebasing: bytes[index..<end]))
                    previous = bytes[end - 1]
                    offset += end - index
                    index = end
                    continue
                }
                step(bytes[index], emit)
                index += 1
            }
        }
    }

    /// The bytes the last `readWhole` took.
    private var lastReadLength = 0
    /// What reads entries in place, with the values it made once kept for the next entries.
    private var decoder = LogEntryByteDecoder()

    /// Reads the entry starting at `rest`'s first byte (a `{`) in place, when one may start here
    /// and it is whole, JSON and no wrapper; says whether it did. The state after it is the one
    /// the byte-by-byte way leaves after the entry's closing brace.
    private mutating func readWhole(_ rest: UnsafeBufferPointer<UInt8>, _ emit: (Event) -> Void) -> Bool {
        guard depth == entryDepth, depth == 0 || valueMayStart,
            let read = decoder.decodePrefix(rest, wrapperEnds: depth == 0), read.length <= maxObjectBytes,
            let outcome = read.outcome
        else { return false }
        let length = read.length
        emit(.entry(outcome, here))
        line += read.newlines
        offset += length
        lastReadLength = length
        previous = 0x7D
        if depth == 0 {
            sawContainer = true
            topIsObject = false
            topIsArray = false
            inWrapperArray = false
        }
        return true
    }

    /// A top-level object that holds its entries under a wrapper key: read the careful way, which
    /// finds them in it.
    static func isWrapper(_ value: JSONValue) -> Bool {
        guard case .object(let members) = value else { return false }
        return members.keys.contains { wrapperKeys.contains(LogKeys.normalized($0)) }
    }

    /// A byte of a number or a literal (`true`, `false`, `null`), or of junk that is no structure.
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"):
            return true
        default: return false
        }
    }

    private mutating func step(_ byte: UInt8, _ emit: (Event) -> Void) {
        defer { offset += 1 }
        if skippingLine {
            skipLine(byte)
        } else if inString {
            stringByte(byte, emit)
        } else {
            structuralByte(byte, emit)
        }
    }

    private mutating func skipLine(_ byte: UInt8) {
        guard byte == 0x0A else { return }
        skippingLine = false
        line += 1
    }

    /// A byte inside a string: escapes followed, a top-level key collected, a raw newline taken as
    /// the damage it is.
    private mutating func stringByte(_ byte: UInt8, _ emit: (Event) -> Void) {
        if escaped {
            escaped = false
        } else if byte == 0x5C {
            escaped = true
        } else if byte == 0x22 {
            inString = false
            if collectingKey {
                collectingKey = false
                lastKey = LogKeys.normalized(String(decoding: key, as: UTF8.self))
            }
        } else if byte == 0x0A {
            // A raw newline cannot be inside a JSON string: the line was cut mid-string.
            let start = capturing ? captureStart : here
            emit(.problem(.garbled, "a string never closes on its line (cut or garbled)", start))
            resynchronize()
            line += 1
            return
        } else if collectingKey && key.count < 64 {
            key.append(byte)
        }
        append(byte)
    }

    /// A byte outside strings: white space, the structure (strings, objects and arrays opened and
    /// closed, commas and colons), or junk at the top level.
    private mutating func structuralByte(_ byte: UInt8, _ emit: (Event) -> Void) {
        switch byte {
        case 0x0A:
            line += 1
            append(byte)
            return
        case 0x20, 0x09, 0x0D:
            append(byte)
            return
        case 0x22:  // "
            guard depth > 0 else { return junk(emit) }
            openString()
        case 0x7B:  // {
            openObject(emit)
        case 0x5B:  // [
            openArray()
        case 0x7D, 0x5D:  // } ]
            guard depth > 0 else { return junk(emit) }
            close(byte, emit)
        case 0x2C:  // ,
            if depth == 0 {
                previous = byte
                return  // tolerated between concatenated entries
            }
            if depth == 1 && topIsObject { expectKey = true }
            append(byte)
        case 0x3A:  // :
            if depth == 1 && topIsObject { expectKey = false }
            append(byte)
        default:
            guard depth > 0 else { return junk(emit) }
            append(byte)
        }
        previous = byte
    }

    private mutating func openString() {
        inString = true
        if depth == 1 && topIsObject && expectKey {
            collectingKey = true
            key.removeAll(keepingCapacity: true)
        }
        append(0x22)
    }

    private mutating func openObject(_ emit: (Event) -> Void) {
        if depth > 0 && !valueMayStart {
            // No value may start here: whatever was open was cut off.
            emit(
                .problem(
                    .garbled, "an entry cut off by the next one (at line \(line))", capturing ? captureStart : here))
            resynchronize()
        }
        if depth == 0 {
            topIsObject = true
            topIsArray = false
            inWrapperArray = false
            sawContainer = true
            expectKey = true
            lastKey = ""
        }
        if !capturing && depth == entryDepth { startCapture() }
        append(0x7B)
        push(array: false)
    }

    private mutating func openArray() {
        if depth == 0 {
            topIsArray = true
            topIsObject = false
            sawContainer = true
        } else if depth == 1 && topIsObject && previous == 0x3A && Self.wrapperKeys.contains(lastKey) {
            // The top-level object is a wrapper: its entries are in this array, not it.
            capturing = false
            buffer = []
            inWrapperArray = true
        }
        append(0x5B)
        push(array: true)
    }

    private mutating func close(_ byte: UInt8, _ emit: (Event) -> Void) {
        append(byte)
        depth -= 1
        if depth < arrays.count { arrays.removeLast() }
        if capturing && depth == captureDepth { endCapture(emit) }
        if byte == 0x5D && depth == 1 && inWrapperArray { inWrapperArray = false }
        if depth == 0 {
            topIsObject = false
            topIsArray = false
            inWrapperArray = false
        }
    }

    /// A value may start after `:`, and after `,` or `[` inside an array (after `,` in an object a
    /// key must come). Past the kept levels, only `:` and `,` and `[` are asked for.
    private var valueMayStart: Bool {
        if previous == 0x3A { return true }
        guard previous == 0x2C || previous == 0x5B else { return false }
        return depth > arrays.count || arrays[depth - 1]
    }

    private mutating func push(array: Bool) {
        if arrays.count == depth && depth < Self.stackLimit { arrays.append(array) }
        depth += 1
    }

    private var here: Position { Position(line: line, offset: offset) }

    private mutating func append(_ byte: UInt8) {
        guard capturing else { return }
        captureSize += 1
        if captureSize <= maxObjectBytes {
            buffer.append(byte)
        } else if !buffer.isEmpty {
            buffer = []  // over the bound: let go of it, and only find its end
        }
    }

    private mutating func append(_ run: UnsafeBufferPointer<UInt8>) {
        guard capturing else { return }
        captureSize += run.count
        if captureSize <= maxObjectBytes {
            buffer.append(contentsOf: run)
        } else if !buffer.isEmpty {
            buffer = []
        }
    }

    private mutating func startCapture() {
        capturing = true
        captureDepth = depth
        captureStart = here
        captureSize = 0
        buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
    }

    private mutating func endCapture(_ emit: (Event) -> Void) {
        capturing = false
        if captureSize > maxObjectBytes {
            emit(
                .problem(
                    .oversized, "an object of \(captureSize) bytes, over the \(maxObjectBytes >> 20) MiB bound",
                    captureStart))
        } else {
            emit(.object(buffer, captureStart))
        }
        buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
    }

    /// Back to the depth where entries begin in the container open, with nothing captured.
    private mutating func resynchronize() {
        inString = false
        escaped = false
        collectingKey = false
        capturing = false
        buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
        depth = entryDepth
        if arrays.count > depth { arrays.removeLast(arrays.count - depth) }
        if depth == 0 {
            topIsObject = false
            topIsArray = false
        }
        previous = depth == 0 ? 0 : 0x2C
    }

    private mutating func junk(_ emit: (Event) -> Void) {
        emit(.problem(.notJSON, "text that is not JSON", here))
        skippingLine = true
    }

    /// The end of the input: an entry or a container still open was cut short.
    public mutating func finish(emit: (Event) -> Void) {
        if capturing {
            emit(.problem(.truncated, "the input ends inside this entry", captureStart))
        } else if depth > 0 {
            emit(.problem(.truncated, "the input ends before its \(topIsArray ? "array" : "object") closes", here))
        }
        capturing = false
        buffer = []
        depth = 0
        arrays = []
        inString = false
        skippingLine = false
        topIsArray = false
        topIsObject = false
        inWrapperArray = false
    }
}
