/// Reads an entry's bytes straight into a `LogEntry` in one pass: each key is matched as bytes
/// against the normalized names (`LogKeys`) without a `String` made for it, the values not read
/// are passed over by a skip that still checks them as JSON (RFC 8259, as `EntryScanner` does),
/// and a `String` is made only for a value kept, once per distinct value when it repeats from
/// entry to entry (`ByteKeyedCache`). Building a `JSONValue` tree of the kept fields and then
/// reading that (`EntryScanner`, then `LogEntryDecoder`) normalized every key twice and cost
/// three fifths of a read; issue 60 asks for ten times `jq -c .`'s throughput, and this reads the
/// bench's export three times as fast as that path did.
///
/// `LogEntryDecoder` stays the definition of what an entry reads as. What this reads the same
/// for certain it reads; anything else it hands to that reference path whole: bytes that are not
/// JSON (so the failure and its offset are the scanner's), objects that are no entry (their
/// reason names their first keys), a field the entry names twice (the tree kept the last of the
/// same spelling and the first of different ones), and keys written with escapes or beyond ASCII
/// (a `String` compares those by canonical equivalence). None of those is in an export as Cloud
/// Logging, BigQuery or fleet-debugger write one.
struct LogEntryByteDecoder: Sendable {
    typealias Outcome = LogEntryDecoder.Outcome

    /// What `decodePrefix` found at the start of its bytes.
    struct Prefix {
        /// Nil for a top-level wrapper when asked to stop there.
        var outcome: Outcome?
        /// The bytes the entry took.
        var length: Int
        /// The newlines among them (the splitter counts lines).
        var newlines: Int
    }

    /// What a `@type` (or a BigQuery payload column) tells, worked out once per spelling.
    struct TypeFacts: Sendable {
        var text: String
        var method: String?
        var isKnown: Bool
        var isRestricted: Bool
    }

    /// What a `logName` tells: the service when it is not Fleet Engine, else the method in it.
    struct LogNameFacts: Sendable {
        var foreign: String?
        var method: String?
    }

    private var logNames = ByteKeyedCache<LogNameFacts>()
    private var types = ByteKeyedCache<TypeFacts>()
    private var texts = ByteKeyedCache<String>()

    init() {}

    /// The one entry that is all of `bytes` (white space around it allowed), or why it is no JSON.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Outcome, EntryScanner.Failure> {
        if let outcome = decodeInOnePass(bytes) { return .success(outcome) }
        // The reference path: it names the failure, or reads what this does not.
        do {
            return .success(LogEntryDecoder.decode(try EntryScanner.scan(bytes)))
        } catch {
            return .failure(error)
        }
    }

    /// `decode`'s outcome when this reads it, nil when the reference path has to (the tests compare
    /// the two).
    mutating func decodeInOnePass(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome? {
        var pass = Pass(bytes: bytes)
        do throws(Pass.Bail) {
            pass.skipSpace()
            try pass.entry()
            pass.skipSpace()
            guard pass.index == bytes.count else { throw .invalid }
            return try outcome(of: pass)
        } catch {
            return nil
        }
    }

    /// The entry at the start of `bytes` (its `{`) and its length; nil when it is not whole there
    /// or not JSON, as `EntryScanner.scanPrefix`. With `wrapperEnds`, an object holding its entries
    /// under a wrapper key (`EntrySplitter.wrapperKeys`) is found but not read.
    mutating func decodePrefix(_ bytes: UnsafeBufferPointer<UInt8>, wrapperEnds: Bool) -> Prefix? {
        var pass = Pass(bytes: bytes)
        do throws(Pass.Bail) {
            try pass.entry()
            if wrapperEnds && pass.found.isWrapper {
                return Prefix(outcome: nil, length: pass.index, newlines: pass.newlines)
            }
            return Prefix(outcome: try outcome(of: pass), length: pass.index, newlines: pass.newlines)
        } catch .invalid {
            return nil
        } catch {
            // The reference path reads it.
        }
        guard let (value, length) = EntryScanner.scanPrefix(bytes) else { return nil }
        var newlines = 0
        for byte in UnsafeBufferPointer(rebasing: bytes[..<length]) where byte == 0x0A { newlines += 1 }
        let outcome = wrapperEnds && EntrySplitter.isWrapper(value) ? nil : LogEntryDecoder.decode(value)
        return Prefix(outcome: outcome, length: length, newlines: newlines)
    }

    // MARK: - From the fields found to the outcome, as `LogEntryDecoder.decode` has it

    private mutating func outcome(of pass: Pass) throws(Pass.Bail) -> Outcome {
        let found = pass.found
        // Its reason names the object's first keys: the reference path has them.
        guard found.looksLikeEntry else { throw .reference }

        var logMethod: String?
        if found.logName.kind != .none {
            let facts = logNameFacts(pass, found.logName)
            if let foreign = facts.foreign { return .skipped(.otherService, "an entry of \(foreign)") }
            logMethod = facts.method
        } else if let type = pass.string(found.resourceType),
            let service = LogEntryDecoder.foreignService(logName: nil, resourceType: type)
        {
            return .skipped(.otherService, "an entry of \(service)")
        }

        let timeSpan =
            found.timestamp.kind != .none
            ? found.timestamp : found.receiveTimestamp.kind != .none ? found.receiveTimestamp : found.serverTime
        guard timeSpan.kind != .none else {
            return .skipped(.noTimestamp, "an entry without timestamp or receiveTimestamp")
        }
        let parsed =
            timeSpan.kind == .plain
            ? LogInstant.parse(utf8: pass.slice(timeSpan)) : pass.string(timeSpan).flatMap(LogInstant.parse)
        guard let time = parsed else {
            let text = pass.string(timeSpan) ?? ""
            return .skipped(.noTimestamp, "timestamp \"\(text.prefix(40))\" is not a time")
        }

        let type = found.payloadType.kind == .none ? nil : typeFacts(pass, found.payloadType)
        let column = found.payloadColumn.map { columnFacts(pass, $0) }
        var entry = LogEntry(time: time)
        entry.insertID = pass.string(found.insertID)
        entry.payloadType = type?.text
        entry.method = logMethod ?? type?.method ?? column?.method
        entry.severity = severity(pass, found.severity)
        entry.ids = found.ids
        entry.error =
            found.hasError
            ? LogEntryDecoder.error(
                code: pass.string(found.errorCode), httpStatus: pass.string(found.errorStatus),
                message: pass.string(found.errorMessage))
            : LogEntryDecoder.error(severity: entry.severity)
        if found.headerIsObject {
            let header = header(pass, found.header)
            entry.header = header == SDKHeader() ? nil : header
        }
        if found.hasSplit, let uid = pass.string(found.splitUID) {
            entry.split = SplitMark(
                uid: uid, index: Int(pass.string(found.splitIndex) ?? "") ?? 0,
                total: Int(pass.string(found.splitTotal) ?? "") ?? 0)
        }
        entry.isRestricted = type?.isRestricted ?? column?.isRestricted ?? false
        entry.parentInsertID = pass.string(found.payloadParent) ?? pass.string(found.topParent)
        if entry.parentInsertID != nil && type == nil { entry.isRestricted = true }
        let unknownType = type.flatMap { $0.isKnown ? nil : $0.text }
        return .entry(entry, unknownFields: found.unknown + found.headerUnknown, unknownType: unknownType)
    }

    private mutating func logNameFacts(_ pass: Pass, _ span: Pass.Span) -> LogNameFacts {
        let bytes = pass.slice(span)
        if span.kind == .plain, let known = logNames.value(0, bytes) { return known }
        let text = pass.string(span) ?? ""
        var facts = LogNameFacts()
        facts.foreign = LogEntryDecoder.foreignService(logName: text, resourceType: nil)
        facts.method = LogEntryDecoder.method(ofLogName: text)
        if span.kind == .plain { logNames.keep(facts, 0, bytes) }
        return facts
    }

    private mutating func typeFacts(_ pass: Pass, _ span: Pass.Span) -> TypeFacts {
        let bytes = pass.slice(span)
        if span.kind == .plain, let known = types.value(0, bytes) { return known }
        let text = pass.string(span) ?? ""
        let name = LogEntryDecoder.lastComponent(text)
        let method = FleetEngineMethods.method(ofLogType: name)
        let facts = TypeFacts(
            text: text, method: method, isKnown: method != nil,
            isRestricted: LogEntryDecoder.isRestricted(typeName: name))
        if span.kind == .plain { types.keep(facts, 0, bytes) }
        return facts
    }

    /// A BigQuery payload column ("jsonpayload_v1_updatevehiclelog"), by its key's bytes.
    private mutating func columnFacts(_ pass: Pass, _ key: Pass.Span) -> TypeFacts {
        let bytes = pass.slice(key)
        if let known = types.value(1, bytes) { return known }
        let column = LogKeys.normalized(bytes: bytes)
        let facts = TypeFacts(
            text: column, method: FleetEngineMethods.method(ofColumn: column), isKnown: true,
            isRestricted: LogEntryDecoder.isRestricted(typeName: column))
        types.keep(facts, 1, bytes)
        return facts
    }

    private mutating func severity(_ pass: Pass, _ span: Pass.Span) -> String? {
        cached(pass, span, tag: 20) { LogEntryDecoder.severity(.string($0)) ?? $0 }
    }

    /// The header's fields, each made once per distinct value.
    private mutating func header(_ pass: Pass, _ spans: Pass.HeaderSpans) -> SDKHeader {
        var header = SDKHeader()
        header.sdkVersion = cached(pass, spans.sdkVersion, tag: 1) { $0 }
        header.osVersion = cached(pass, spans.osVersion, tag: 2) { $0 }
        header.platform = cached(pass, spans.platform, tag: 3, LogEntryDecoder.platformName)
        header.sdkType = cached(pass, spans.sdkType, tag: 4, LogEntryDecoder.sdkTypeName)
        header.deviceModel = cached(pass, spans.deviceModel, tag: 5) { $0 }
        header.manufacturer = cached(pass, spans.manufacturer, tag: 6) { $0 }
        header.mapsSDKVersion = cached(pass, spans.mapsSDKVersion, tag: 7) { $0 }
        header.navSDKVersion = cached(pass, spans.navSDKVersion, tag: 8) { $0 }
        return header
    }

    /// `made` of the span's text (nil when it has none), kept by the span's bytes when it is a
    /// plain string.
    private mutating func cached(
        _ pass: Pass, _ span: Pass.Span, tag: UInt8, _ made: (String) -> String
    ) -> String? {
        guard span.kind == .plain else { return pass.string(span).map(made) }
        let bytes = pass.slice(span)
        if let known = texts.value(tag, bytes) { return known }
        let value = made(String(decoding: bytes, as: UTF8.self))
        texts.keep(value, tag, bytes)
        return value
    }
}
