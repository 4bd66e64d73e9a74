/// The counted entries of an export in time order, each kept as the few numbers the per-ID
/// tally reads (its time, IDs, method, error, header), so that the logs screen can show the
/// export as it stood at any instant and play it as a recording plays.
///
/// This is the one part of a read that grows with the entries, so only the screen keeps it
/// (`--summary` and `--watch` do not), at 24 bytes a call plus 4 per ID it names, up to
/// `maxCalls` (about 100 MB; an export of some 7 GB). What repeats across calls (IDs, methods,
/// headers, errors) is stored once. Past the limit the rest is counted in `dropped` and the
/// playback ends where the kept calls end; the table at the end is still the whole read's.
public struct ExportTimeline: Sendable {
    public static let maxCalls = 4_000_000

    struct Call: Sendable {
        var micros: Int64
        /// The call's IDs: `idRefs[ids ..< ids + idCount]`.
        var ids: Int32
        var idCount: UInt16
        var method: UInt16
        /// Indices into `errors` and `headers`; -1 for none.
        var error: Int32
        var header: Int32
    }

    private var calls: [Call] = []
    private var idRefs: [Int32] = []
    private var idTable = Interned<LoggedID>()
    private var methodTable = Interned<String>()
    private var errorTable = Interned<ErrorKey>()
    private var headerTable = Interned<SDKHeader>()
    private var sorted = true
    /// Calls past `maxCalls`, not kept.
    public private(set) var dropped = 0
    private let maxCalls: Int

    /// `LoggedError` as a key: it is not Hashable itself.
    struct ErrorKey: Hashable, Sendable {
        var code: String
        var httpStatus: Int?
        var message: String?
    }

    public init(maxCalls: Int = ExportTimeline.maxCalls) { self.maxCalls = maxCalls }

    public var count: Int { calls.count }

    /// One counted entry (never a duplicate or a split's later part: `ExportReader.onEntry`).
    public mutating func add(_ entry: LogEntry) {
        guard calls.count < maxCalls, entry.ids.count <= Int(UInt16.max),
            idRefs.count + entry.ids.count <= Int(Int32.max)
        else {
            dropped += 1
            return
        }
        let first = Int32(idRefs.count)
        for id in entry.ids { idRefs.append(idTable.index(of: id)) }
        let call = Call(
            micros: entry.time.microseconds, ids: first, idCount: UInt16(entry.ids.count),
            // Methods are Fleet Engine's few dozen names; an export naming more keeps the rest as unknown.
            method: entry.method.map { UInt16(clamping: methodTable.index(of: $0)) } ?? UInt16.max,
            error: entry.error.map {
                errorTable.index(of: ErrorKey(code: $0.code, httpStatus: $0.httpStatus, message: $0.message))
            }
                ?? -1,
            header: entry.header.map { headerTable.index(of: $0) } ?? -1)
        if let last = calls.last, last.micros > call.micros { sorted = false }
        calls.append(call)
    }

    /// Puts the calls in time order, those of one instant in the order read; once, after the read.
    public mutating func finish() {
        guard !sorted else { return }
        // Sorted by (time, position read) so that equal times keep the read's order.
        let order = calls.indices.sorted { (calls[$0].micros, $0) < (calls[$1].micros, $1) }
        calls = order.map { calls[$0] }
        sorted = true
    }

    public var from: LogInstant? { calls.first.map { LogInstant(microseconds: $0.micros) } }
    public var to: LogInstant? { calls.last.map { LogInstant(microseconds: $0.micros) } }

    /// The time of call `index`.
    public func time(at index: Int) -> LogInstant { LogInstant(microseconds: calls[index].micros) }

    /// How many calls are at or before `instant`: the calls the export holds by then.
    public func count(through instant: LogInstant) -> Int {
        var low = 0
        var high = calls.count
        while low < high {
            let mid = (low + high) / 2
            if calls[mid].micros <= instant.microseconds { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Call `index` as an entry again, with what the tally reads of it.
    public func entry(at index: Int) -> LogEntry {
        let call = calls[index]
        let start = Int(call.ids)
        let ids = (start..<(start + Int(call.idCount))).map { idTable.values[Int(idRefs[$0])] }
        let method = call.method == UInt16.max ? nil : methodTable.values[Int(call.method)]
        let error = call.error < 0 ? nil : errorTable.values[Int(call.error)]
        return LogEntry(
            method: method, time: LogInstant(microseconds: call.micros), ids: ids,
            error: error.map { LoggedError(code: $0.code, httpStatus: $0.httpStatus, message: $0.message) },
            header: call.header < 0 ? nil : headerTable.values[Int(call.header)])
    }

    /// Adds calls `range` to `tally`, in time order.
    public func fold(_ range: Range<Int>, into tally: inout ExportTally) {
        for index in range { tally.add(entry(at: index)) }
    }
}

/// Values stored once, each known by its index.
struct Interned<Value: Hashable & Sendable>: Sendable {
    private(set) var values: [Value] = []
    private var indices: [Value: Int32] = [:]

    mutating func index(of value: Value) -> Int32 {
        if let index = indices[value] { return index }
        let index = Int32(values.count)
        values.append(value)
        indices[value] = index
        return index
    }
}
