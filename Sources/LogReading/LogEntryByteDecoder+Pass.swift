extension LogEntryByteDecoder {
    /// One walk over one entry's bytes: the JSON checked as `EntryScanner` checks it, the fields
    /// `LogEntryDecoder` reads found as spans of the bytes (a `String` is made later, of those
    /// used), the IDs and the unknown names made as they pass.
    struct Pass {
        /// Why the walk stopped: the bytes are not JSON (or not whole), or the entry needs the
        /// reference path (see `LogEntryByteDecoder`).
        enum Bail: Error {
            case invalid
            case reference
        }

        /// Where a value's text lies: a string's body (plain, or with escapes to decode), a
        /// number's bytes, or a literal.
        struct Span {
            enum Kind: UInt8 {
                case none, plain, escaped, number, yes, no
            }
            var kind: Kind
            var start: Int
            var end: Int

            static let none = Span(kind: .none, start: 0, end: 0)
            static let yes = Span(kind: .yes, start: 0, end: 0)
            static let no = Span(kind: .no, start: 0, end: 0)
        }

        /// `request.header`'s fields read, each its first member with text.
        struct HeaderSpans {
            var sdkVersion = Span.none
            var osVersion = Span.none
            var platform = Span.none
            var sdkType = Span.none
            var deviceModel = Span.none
            var manufacturer = Span.none
            var mapsSDKVersion = Span.none
            var navSDKVersion = Span.none
        }

        /// What the walk found: the fields `LogEntryDecoder` reads, by where their text is.
        struct Found {
            var looksLikeEntry = false
            var isWrapper = false
            var insertID = Span.none
            var logName = Span.none
            var timestamp = Span.none
            var receiveTimestamp = Span.none
            var serverTime = Span.none
            var severity = Span.none
            var topParent = Span.none
            var resourceType = Span.none
            var payloadType = Span.none
            var payloadParent = Span.none
            /// A BigQuery payload column's key.
            var payloadColumn: Span?
            var hasError = false
            var errorCode = Span.none
            var errorStatus = Span.none
            var errorMessage = Span.none
            var hasSplit = false
            var splitUID = Span.none
            var splitIndex = Span.none
            var splitTotal = Span.none
            var headerIsObject = false
            var header = HeaderSpans()
            var ids: [LoggedID] = []
            var unknown: [String] = []
            var headerUnknown: [String] = []
        }

        /// The fields met once so far, one bit each: a second is a field named twice.
        enum Field: Int {
            case insertID, logName, timestamp, receiveTimestamp, serverTime, severity, labels, split, topParent
            case resource, payload, resourceType, payloadType, payloadParent, errorResponse, request, header
            case errorCode, errorStatus, errorMessage, splitUID, splitIndex, splitTotal
            case sdkVersion, osVersion, platform, sdkType, deviceModel, manufacturer, mapsSDKVersion, navSDKVersion
            case vehicleLabel, tripLabel, deliveryVehicleLabel, taskLabel
        }

        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var found = Found()
        /// Newlines passed: in JSON they are white space between tokens, all of it `skipSpace`'s.
        var newlines = 0
        private var met: UInt64 = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        @inline(__always)
        private mutating func once(_ field: Field) throws(Bail) {
            let bit: UInt64 = 1 << field.rawValue
            guard met & bit == 0 else { throw .reference }
            met |= bit
        }

        func slice(_ span: Span) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: bytes[span.start..<span.end])
        }

        /// The span's text as `LogKeys.text` has a value's: strings as they are, numbers and
        /// literals written out; nil for none.
        func string(_ span: Span) -> String? {
            switch span.kind {
            case .none: return nil
            case .plain: return String(decoding: slice(span), as: UTF8.self)
            case .escaped: return EntryScanner.string(in: bytes, at: span.start - 1)
            case .yes: return "true"
            case .no: return "false"
            case .number:
                // As `EntryScanner` builds a number (an integer when it has no fraction or
                // exponent and fits, else a double) and `LogKeys.text` writes it.
                let text = String(decoding: slice(span), as: UTF8.self)
                let integral = !slice(span).contains {
                    $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
                }
                if integral, let whole = Int64(text) { return String(whole) }
                return String(Double(text) ?? .nan)
            }
        }

        // MARK: - The entry's objects

        /// The entry: an object (anything else is the reference path's to name).
        mutating func entry() throws(Bail) {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw .reference }
            index += 1
            var first = true
            while let key = try nextKey(&first) {
                try topMember(key)
            }
        }

        /// One top-level member, as `LogEntryDecoder.decode` sorts them: the payload, the fields
        /// it reads, a BigQuery payload column, the other LogEntry fields, and unknown ones.
        private mutating func topMember(_ key: Span) throws(Bail) {
            let depth = 1
            switch firstByte(key) {
            case UInt8(ascii: "i"):
                if self.key(key, is: "insertid") {
                    try once(.insertID)
                    found.insertID = try text(depth: depth)
                    found.looksLikeEntry = true
                    return
                }
            case UInt8(ascii: "l"):
                if self.key(key, is: "logname") {
                    try once(.logName)
                    found.logName = try text(depth: depth)
                    found.looksLikeEntry = true
                    return
                }
                if self.key(key, is: "labels") {
                    try once(.labels)
                    return try labels(depth: depth)
                }
                if self.key(key, is: "logs") || self.key(key, is: "logentries") { found.isWrapper = true }
            case UInt8(ascii: "t"):
                if self.key(key, is: "timestamp") {
                    try once(.timestamp)
                    found.timestamp = try text(depth: depth)
                    found.looksLikeEntry = true
                    return
                }
                if self.key(key, is: "textpayload") || self.key(key, is: "trace") || self.key(key, is: "tracesampled") {
                    return try skipValue(depth: depth)
                }
            case UInt8(ascii: "r"):
                if self.key(key, is: "receivetimestamp") {
                    try once(.receiveTimestamp)
                    found.receiveTimestamp = try text(depth: depth)
                    found.looksLikeEntry = true
                    return
                }
                if self.key(key, is: "resource") {
                    try once(.resource)
                    return try resource(depth: depth)
                }
                if self.key(key, is: "rawlogs") { found.isWrapper = true }
            case UInt8(ascii: "s"):
                if self.key(key, is: "severity") {
                    try once(.severity)
                    found.severity = try text(depth: depth)
                    return
                }
                if self.key(key, is: "split") {
                    try once(.split)
                    return try split(depth: depth)
                }
                if self.key(key, is: "servertime") {
                    try once(.serverTime)
                    found.serverTime = try text(depth: depth)
                    return
                }
                if self.key(key, is: "spanid") || self.key(key, is: "sourcelocation") {
                    return try skipValue(depth: depth)
                }
            case UInt8(ascii: "j"):
                if self.key(key, hasPrefix: "jsonpayload") {
                    found.looksLikeEntry = true
                    let exact = self.key(key, is: "jsonpayload")
                    guard exact || peek == UInt8(ascii: "{") else { return try skipValue(depth: depth) }
                    try once(.payload)
                    if !exact { found.payloadColumn = key }
                    guard peek == UInt8(ascii: "{") else { return try skipValue(depth: depth) }
                    return try payload(depth: depth)
                }
            case UInt8(ascii: "p"):
                if self.key(key, is: "parentinsertid") {
                    try once(.topParent)
                    found.topParent = try text(depth: depth)
                    return
                }
                if self.key(key, is: "protopayload") { return try skipValue(depth: depth) }
            case UInt8(ascii: "o"):
                if self.key(key, is: "operation") || self.key(key, is: "otel") { return try skipValue(depth: depth) }
            case UInt8(ascii: "h"):
                if self.key(key, is: "httprequest") { return try skipValue(depth: depth) }
            case UInt8(ascii: "e"):
                if self.key(key, is: "errorgroups") { return try skipValue(depth: depth) }
                if self.key(key, is: "entries") { found.isWrapper = true }
            case UInt8(ascii: "a"):
                if self.key(key, is: "apphub") || self.key(key, is: "apphubdestination")
                    || self.key(key, is: "apphubsource")
                {
                    return try skipValue(depth: depth)
                }
            default: break
            }
            let name = String(decoding: slice(key), as: UTF8.self)
            if !found.unknown.contains(name) { found.unknown.append(name) }
            try skipValue(depth: depth)
        }

        /// `resource`: its `type` alone.
        private mutating func resource(depth: Int) throws(Bail) {
            guard peek == UInt8(ascii: "{") else { return try skipValue(depth: depth) }
            index += 1
            var first = true
            while let key = try nextKey(&first) {
                if self.key(key, is: "type") {
                    try once(.resourceType)
                    found.resourceType = try text(depth: depth + 1)
                } else {
                    try skipValue(depth: depth + 1)
                }
            }
        }

        /// The labels' IDs, in label order; `trip_id` may list several.
        private mutating func labels(depth: Int) throws(Bail) {
            guard peek == UInt8(ascii: "{") else { return try skipValue(depth: depth) }
            index += 1
            var first = true
            while let key = try nextKey(&first) {
                let kind: LoggedIDKind
                if self.key(key, is: "vehicleid") {
                    try once(.vehicleLabel)
                    kind = .vehicle
                } else if self.key(key, is: "tripid") {
                    try once(.tripLabel)
                    kind = .trip
                } else if self.key(key, is: "deliveryvehicleid") {
                    try once(.deliveryVehicleLabel)
                    kind = .deliveryVehicle
                } else if self.key(key, is: "taskid") {
                    try once(.taskLabel)
                    kind = .task
                } else if self.key(key, is: "value") {
                    // `{"value": {…}}` is a wrapped column of labels (`LogKeys.unwrapped`).
                    throw .reference
                } else {
                    try skipValue(depth: depth + 1)
                    continue
                }
                let span = try text(depth: depth + 1)
                appendIDs(span, kind)
            }
        }

        /// The IDs a label's text lists: the text whole when it has no comma, space or tab (and
        /// is ASCII, so bytes and characters agree); else as `LogEntryDecoder.ids` splits it.
        private mutating func appendIDs(_ span: Span, _ kind: LoggedIDKind) {
            if span.kind == .plain, span.end > span.start,
                !slice(span).contains(where: {
                    $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 >= 0x80
                })
            {
                let id = LoggedID(kind, String(decoding: slice(span), as: UTF8.self))
                if !found.ids.contains(id) { found.ids.append(id) }
            } else if let text = string(span) {
                LogEntryDecoder.appendIDs(of: text, kind: kind, to: &found.ids)
            }
        }

        private mutating func split(depth: Int) throws(Bail) {
            guard peek == UInt8(ascii: "{") else { return try skipValue(depth: depth) }
            found.hasSplit = true
            index += 1
            var first = true
            while let key = try nextKey(&first) {
                if self.key(key, is: "uid") {
                    try once(.splitUID)
                    found.splitUID = try text(depth: depth + 1)
                } else if self.key(key, is: "index") {
                    try once(.splitIndex)
                    found.splitIndex = try text(depth: depth + 1)
                } else if self.key(key, is: "totalsplits") {
                    try once(.splitTotal)
                    found.splitTotal = try text(depth: depth + 1)
                } else {
                    try skipValue(depth: depth + 1)
                }
            }
        }

        /// The payload (at its `{`): `@type`, `parentInsertId`, `errorResponse`, `request.header`.
        private mutating func payload(depth: Int) throws(Bail) {
            index += 1
            var first = true
            while let key = try nextKey(&first) {
                switch firstByte(key) {
                case UInt8(ascii: "t") where self.key(key, is: "type"):
                    try once(.payloadType)
                    found.payloadType = try text(depth: depth + 1)
                case UInt8(ascii: "p") where self.key(key, is: "parentinsertid"):
                    try once(.payloadParent)
                    found.payloadParent = try text(depth: depth + 1)
                case UInt8(ascii: "e") where self.key(key, is: "errorresponse"):
                    try once(.errorResponse)
                    try errorResponse(depth: depth + 1)
                case UInt8(ascii: "r") where self.key(key, is: "request"):
                    try once(.request)
                    try request(depth: depth + 1)
                default:
                    try skipValue(depth: depth + 1)
                }
            }
        }

        private mutating func errorResponse(depth: Int) throws(Bail) {
            guard peek == UInt8(ascii: "{") else { return try skipValue(depth: depth) }
            found.hasError = true
            index += 1
            var first = true
            while let key = try nextKey(&first) {
                if self.key(key, is: "code") {
                    try once(.errorCode)
                    // `LogEntryDecoder.error` unwraps the code twice.
                    found.errorCode = try text(depth: depth + 1, unwrap: 2)
                } else if self.key(key, is: "httpstatuscode") {
                    try once(.errorStatus)
                    found.errorStatus = try text(depth: depth + 1)
                } else if self.key(key, is: "message") {
                    try once(.errorMessage)
                    found.errorMessage = try text(depth: depth + 1)
                } else {
                    try skipValue(depth: depth + 1)
                }
            }
        }

        private mutating func request(depth: Int) throws(Bail) {
            guard peek == UInt8(ascii: "{") else { return try skipValue(depth: depth) }
            index += 1
            var first = true
            while let key = try nextKey(&first) {
                if firstByte(key) == UInt8(ascii: "h"), self.key(key, is: "header") {
                    try once(.header)
                    try header(depth: depth + 1)
                } else {
                    try skipValue(depth: depth + 1)
                }
            }
        }

        /// `request.header`: the fields read, the known ones passed over, the others named.
        private mutating func header(depth: Int) throws(Bail) {
            guard peek == UInt8(ascii: "{") else { return try skipValue(depth: depth) }
            found.headerIsObject = true
            index += 1
            var first = true
            while let key = try nextKey(&first) {
                let inner = depth + 1
                switch firstByte(key) {
                case UInt8(ascii: "s"):
                    if self.key(key, is: "sdkversion") {
                        try headerText(.sdkVersion, \.sdkVersion, depth: inner)
                        continue
                    }
                    if self.key(key, is: "sdktype") {
                        try headerText(.sdkType, \.sdkType, depth: inner)
                        continue
                    }
                case UInt8(ascii: "o"):
                    if self.key(key, is: "osversion") {
                        try headerText(.osVersion, \.osVersion, depth: inner)
                        continue
                    }
                case UInt8(ascii: "p"):
                    if self.key(key, is: "platform") {
                        try headerText(.platform, \.platform, depth: inner)
                        continue
                    }
                case UInt8(ascii: "d"):
                    if self.key(key, is: "devicemodel") {
                        try headerText(.deviceModel, \.deviceModel, depth: inner)
                        continue
                    }
                case UInt8(ascii: "m"):
                    if self.key(key, is: "manufacturer") {
                        try headerText(.manufacturer, \.manufacturer, depth: inner)
                        continue
                    }
                    if self.key(key, is: "mapssdkversion") {
                        try headerText(.mapsSDKVersion, \.mapsSDKVersion, depth: inner)
                        continue
                    }
                case UInt8(ascii: "n"):
                    if self.key(key, is: "navsdkversion") {
                        try headerText(.navSDKVersion, \.navSDKVersion, depth: inner)
                        continue
                    }
                case UInt8(ascii: "l"):
                    if self.key(key, is: "languagecode") {
                        try skipValue(depth: inner)
                        continue
                    }
                case UInt8(ascii: "r"):
                    if self.key(key, is: "regioncode") {
                        try skipValue(depth: inner)
                        continue
                    }
                case UInt8(ascii: "a"):
                    if self.key(key, is: "androidapilevel") {
                        try skipValue(depth: inner)
                        continue
                    }
                case UInt8(ascii: "t"):
                    if self.key(key, is: "traceid") {
                        try skipValue(depth: inner)
                        continue
                    }
                default: break
                }
                let name = "request.header." + String(decoding: slice(key), as: UTF8.self)
                if !found.headerUnknown.contains(name) { found.headerUnknown.append(name) }
                try skipValue(depth: inner)
            }
        }

        /// A header field's text, kept when it has any (an empty one does not count).
        @inline(__always)
        private mutating func headerText(
            _ field: Field, _ path: WritableKeyPath<HeaderSpans, Span>, depth: Int
        ) throws(Bail) {
            try once(field)
            let span = try text(depth: depth)
            let empty = span.kind == .plain && span.end == span.start
            if span.kind != .none && !empty { found.header[keyPath: path] = span }
        }

        // MARK: - Keys

        /// The next member's key of the object being read, its `:` and the space after taken;
        /// nil at the object's end (its `}` taken). `first` is true just after the `{`.
        @inline(__always)
        mutating func nextKey(_ first: inout Bool) throws(Bail) -> Span? {
            skipSpace()
            guard index < bytes.count else { throw .invalid }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return nil
            }
            if !first {
                guard bytes[index] == UInt8(ascii: ",") else { throw .invalid }
                index += 1
                skipSpace()
                guard index < bytes.count else { throw .invalid }
            }
            first = false
            guard bytes[index] == UInt8(ascii: "\"") else { throw .invalid }
            let start = index + 1
            let bytes = bytes
            var position = start
            var seen: UInt8 = 0
            while true {
                guard position < bytes.count else { throw .invalid }
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") { break }
                guard byte >= 0x20 else { throw .invalid }
                // An escape or a byte beyond ASCII: the reference path matches such keys (after it
                // checks the escape).
                if byte == UInt8(ascii: "\\") { throw .reference }
                seen |= byte
                position += 1
            }
            if seen >= 0x80 { throw .reference }
            let key = Span(kind: .plain, start: start, end: position)
            index = position + 1
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw .invalid }
            index += 1
            skipSpace()
            return key
        }

        /// The key's first byte as normalized (`LogKeys`), or 0 when it has none.
        @inline(__always)
        private func firstByte(_ key: Span) -> UInt8 {
            var position = key.start
            while position < key.end {
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "-") { continue }
                return byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            }
            return 0
        }

        /// Whether the key normalizes (`LogKeys`) to `name`, given normalized.
        @inline(__always)
        private func key(_ key: Span, is name: StaticString) -> Bool {
            normalizedMatch(key, name) == .whole
        }

        /// Whether the key, normalized, starts with `name`.
        @inline(__always)
        private func key(_ key: Span, hasPrefix name: StaticString) -> Bool {
            normalizedMatch(key, name) != .differs
        }

        private enum Match { case differs, prefix, whole }

        @inline(__always)
        private func normalizedMatch(_ key: Span, _ name: StaticString) -> Match {
            let wanted = name.utf8Start
            let count = name.utf8CodeUnitCount
            var matched = 0
            var position = key.start
            while position < key.end {
                var byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "-") { continue }
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
                if matched == count { return .prefix }
                guard wanted[matched] == byte else { return .differs }
                matched += 1
            }
            return matched == count ? .whole : .differs
        }

        // MARK: - Values

        var peek: UInt8 { index < bytes.count ? bytes[index] : 0 }

        @inline(__always)
        mutating func skipSpace() {
            // Compact JSON has none: one look.
            guard index < bytes.count, bytes[index] <= 0x20 else { return }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x0A {
                    newlines += 1
                } else if byte != 0x20 && byte != 0x0D && byte != 0x09 {
                    return
                }
                index += 1
            }
        }

        /// The text of the value here, as `LogKeys.text` reads one: a `{"value": …}` wrapper
        /// taken off up to `unwrap` times; nil (`.none`) for null, arrays and other objects.
        mutating func text(depth: Int, unwrap: Int = 1) throws(Bail) -> Span {
            guard depth < EntryScanner.depthLimit, index < bytes.count else { throw .invalid }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let start = index + 1
                let plain = try skipString()
                return Span(kind: plain ? .plain : .escaped, start: start, end: index - 1)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                try skipNumber()
                return Span(kind: .number, start: start, end: index)
            case UInt8(ascii: "t"):
                try literal("true")
                return .yes
            case UInt8(ascii: "f"):
                try literal("false")
                return .no
            case UInt8(ascii: "n"):
                try literal("null")
                return .none
            case UInt8(ascii: "{"):
                guard unwrap > 0 else {
                    try skipObject(depth: depth)
                    return .none
                }
                return try unwrapped(depth: depth, unwrap: unwrap)
            case UInt8(ascii: "["):
                try skipArray(depth: depth)
                return .none
            default: throw .invalid
            }
        }

        /// An object where text is read: its `value`'s text when that is its one member
        /// (`LogKeys.unwrapped`), else none.
        private mutating func unwrapped(depth: Int, unwrap: Int) throws(Bail) -> Span {
            index += 1
            var first = true
            var members = 0
            var inner = Span.none
            var wrapped = false
            while let key = try nextKey(&first) {
                if self.key(key, is: "value") {
                    // A second `value`: the tree kept one member of an exact repeat.
                    guard members == 0 else { throw .reference }
                    inner = try text(depth: depth + 1, unwrap: unwrap - 1)
                    wrapped = true
                } else {
                    try skipValue(depth: depth + 1)
                }
                members += 1
            }
            return members == 1 && wrapped ? inner : .none
        }

        /// Passes over the value here, checking it.
        mutating func skipValue(depth: Int) throws(Bail) {
            guard depth < EntryScanner.depthLimit, index < bytes.count else { throw .invalid }
            switch bytes[index] {
            case UInt8(ascii: "\""): _ = try skipString()
            case UInt8(ascii: "{"): try skipObject(depth: depth)
            case UInt8(ascii: "["): try skipArray(depth: depth)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: throw .invalid
            }
        }

        private mutating func skipObject(depth: Int) throws(Bail) {
            index += 1
            skipSpace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw .invalid }
                _ = try skipString()
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw .invalid }
                index += 1
                skipSpace()
                // Most members are strings or numbers: passed over here, without a call (after the
                // depth check `skipValue` makes of every value).
                guard depth + 1 < EntryScanner.depthLimit else { throw .invalid }
                if peek == UInt8(ascii: "\"") {
                    _ = try skipString()
                } else if Self.isDigit(peek) {
                    try skipNumber()
                } else {
                    try skipValue(depth: depth + 1)
                }
                skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard peek == UInt8(ascii: "}") else { throw .invalid }
                index += 1
                return
            }
        }

        private mutating func skipArray(depth: Int) throws(Bail) {
            index += 1
            skipSpace()
            if peek == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                skipSpace()
                try skipValue(depth: depth + 1)
                skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard peek == UInt8(ascii: "]") else { throw .invalid }
                index += 1
                return
            }
        }

        /// Passes over the string here (at its quote), checking its escapes and that no raw
        /// control byte is in it; says whether it had no escape.
        @inline(__always)
        mutating func skipString() throws(Bail) -> Bool {
            // The position in a local, not `index`: stored back at each byte, it cost a store a byte
            // (a pass that throws is dropped, so `index` need not be right then).
            let bytes = bytes
            var position = index + 1
            var plain = true
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    index = position + 1
                    return plain
                }
                if byte == UInt8(ascii: "\\") {
                    plain = false
                    index = position
                    try skipEscape()
                    position = index
                    continue
                }
                guard byte >= 0x20 else { throw .invalid }
                position += 1
            }
            throw .invalid
        }

        private mutating func skipEscape() throws(Bail) {
            guard index + 1 < bytes.count else { throw .invalid }
            let kind = bytes[index + 1]
            index += 2
            switch kind {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                return
            case UInt8(ascii: "u"):
                guard bytes.count - index >= 4 else { throw .invalid }
                for _ in 0..<4 {
                    let byte = bytes[index] | 0x20
                    guard
                        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    else { throw .invalid }
                    index += 1
                }
            default: throw .invalid
            }
        }

        @inline(__always)
        private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

        private mutating func skipNumber() throws(Bail) {
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw .invalid }
            let first = bytes[index]
            index += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if peek == UInt8(ascii: ".") {
                index += 1
                guard Self.isDigit(peek) else { throw .invalid }
                skipDigits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard Self.isDigit(peek) else { throw .invalid }
                skipDigits()
            }
        }

        @inline(__always)
        private mutating func skipDigits() {
            let bytes = bytes
            var position = index
            while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
            index = position
        }

        private mutating func literal(_ word: StaticString) throws(Bail) {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { throw .invalid }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw .invalid }
            index += count
        }
    }
}
