import FleetAuth
import Synchronization

extension TokenRules {
    /// What a reader of one backend's tokens by the thousand (the tap) keeps of the parts they
    /// share: a backend signs every token with one key as one service account, so each token's
    /// header and issuer are its last one's. The last header part's decoding, the last header's
    /// results and the last issuer's result are kept, each used only for inputs equal to the ones
    /// it came from: a token judged through a memo gets the results it would get without one.
    public final class Memo: Sendable {
        private struct Kept {
            var headerPart = ""
            var decodedHeader: JSONValue?
            var headerRead: [JSONValue?]?
            var headerResults: [RuleResult] = []
            var issuerRead: [JSONValue?]?
            var issuerResult: RuleResult?
        }
        // Guards what is kept: one reader uses a memo, but its decoders are `Sendable`.
        private let kept = Mutex(Kept())

        public init() {}

        /// `part` decoded as `JWTInspector.decodeHeader` decodes it.
        public func decodedHeader(_ part: Substring) throws(FleetAuthError) -> JSONValue {
            let header = kept.withLock { kept -> JSONValue? in
                let same =
                    part.utf8.withContiguousStorageIfAvailable { given in
                        kept.headerPart.withUTF8 { $0.elementsEqual(given) }
                    } ?? kept.headerPart.utf8.elementsEqual(part.utf8)
                return same ? kept.decodedHeader : nil
            }
            if let header { return header }
            let decoded = try JWTInspector.decodeHeader(part)
            kept.withLock {
                $0.headerPart = String(part)
                $0.decodedHeader = decoded
            }
            return decoded
        }

        /// `TokenRules.header` reads the header's `alg`, `typ` and `kid` and nothing else.
        func header(_ value: JSONValue) -> [RuleResult] {
            let read = [value["alg"], value["typ"], value["kid"]]
            let results = kept.withLock { kept -> [RuleResult]? in
                guard let last = kept.headerRead, zip(last, read).allSatisfy(Self.identical) else { return nil }
                return kept.headerResults
            }
            if let results { return results }
            let judged = TokenRules.header(value)
            kept.withLock {
                $0.headerRead = read
                $0.headerResults = judged
            }
            return judged
        }

        /// `TokenRules.issuer` reads `iss` and `sub` and nothing else.
        func issuer(_ claims: JSONValue, providerID: String?) -> RuleResult {
            let read = [claims["iss"], claims["sub"], providerID.map(JSONValue.string)]
            let result = kept.withLock { kept -> RuleResult? in
                guard let last = kept.issuerRead, zip(last, read).allSatisfy(Self.identical) else { return nil }
                return kept.issuerResult
            }
            if let result { return result }
            let judged = TokenRules.issuer(claims, providerID: providerID)
            kept.withLock {
                $0.issuerRead = read
                $0.issuerResult = judged
            }
            return judged
        }

        /// Equal to the byte: a message quotes what it read, and Swift's `==` on strings takes a
        /// decomposed "é" for a composed one.
        static func identical(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (.string(let x)?, .string(let y)?): sameBytes(x, y)
            case (.array(let x)?, .array(let y)?): x.count == y.count && zip(x, y).allSatisfy(identical)
            case (.object(let x)?, .object(let y)?):
                x.count == y.count
                    && x.allSatisfy { key, value in y.contains { sameBytes($0.key, key) && identical(value, $0.value) }
                    }
            case (let x?, let y?): x == y
            default: false
            }
        }

        /// Over the strings' UTF-8 in place: compared through the view, an issuer's fifty bytes
        /// cost more than judging it.
        static func sameBytes(_ x: String, _ y: String) -> Bool {
            var x = x
            var y = y
            return x.withUTF8 { a in y.withUTF8 { b in a.count == b.count && a.elementsEqual(b) } }
        }
    }
}
