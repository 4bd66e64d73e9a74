import Foundation
import JSONValues
import ProviderVocabulary
import Synchronization
import TokenReading

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
            var headerRead: Read?
            var headerResults: [RuleResult] = []
            var issuerRead: Read?
            var issuerResult: RuleResult?
        }

        /// The members a rule reads: its result is kept for tokens whose members are these to the byte.
        private struct Read {
            var first, second, third: JSONValue?
            func same(as other: Read) -> Bool {
                identical(first, other.first) && identical(second, other.second) && identical(third, other.third)
            }
        }
        // Guards what is kept: one reader uses a memo, but its decoders are `Sendable`.
        private let kept = Mutex(Kept())

        public init() {}

        /// `part` decoded as `JWTInspector.decodeHeader` decodes it.
        public func decodedHeader(_ part: Substring) throws(JWTReadingError) -> JSONValue {
            let header = kept.withLock { kept -> JSONValue? in
                let same =
                    part.utf8.withContiguousStorageIfAvailable { given in
                        kept.headerPart.withUTF8 { Self.sameBytes($0, given) }
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
            let read = Read(first: value["alg"], second: value["typ"], third: value["kid"])
            let results = kept.withLock { kept -> [RuleResult]? in
                guard let last = kept.headerRead, last.same(as: read) else { return nil }
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
            let read = Read(first: claims["iss"], second: claims["sub"], third: providerID.map(JSONValue.string))
            let result = kept.withLock { kept -> RuleResult? in
                guard let last = kept.issuerRead, last.same(as: read) else { return nil }
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
            // A walk costs the square of the count: past a few members (a hostile header's, say)
            // the memo is not used, which costs the rule, never a wrong result.
            case (.object(let x)?, .object(let y)?):
                x.count == y.count && x.count <= JSONObject.walkLimit
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
            return x.withUTF8 { a in y.withUTF8 { b in sameBytes(a, b) } }
        }

        static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
            guard a.count == b.count else { return false }
            guard let left = a.baseAddress, let right = b.baseAddress else { return true }
            return memcmp(left, right, a.count) == 0
        }
    }
}
