/// A JSON object: its members in the order they were written, each key once. Looked up by a
/// walk, not a hash: a token's objects hold a handful of members, and the tap reads thousands of
/// tokens a second, where a `Dictionary` hashed every key as it was built and again at every
/// lookup. Keys compare as `String`s do (canonical equivalence), as a `Dictionary`'s would.
public struct JSONObject: Sendable, Equatable, Codable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: JSONValue)
    public typealias Key = String
    public typealias Value = JSONValue

    public private(set) var members: [Element]

    /// Above this many members, repeats are found and objects compared through a `Dictionary`:
    /// a walk costs the square of the count, and a hostile answer may hold thousands.
    public static let walkLimit = 16

    public init() { members = [] }

    /// `dictionary`'s members, by key: a `Dictionary` has no order of its own to keep.
    public init(_ dictionary: [String: JSONValue]) {
        members = dictionary.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
    }

    /// A later repeat of a key replaces the earlier, as `Dictionary(_:uniquingKeysWith:)` would
    /// keep the last.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }

    /// Members whose keys are known to differ: nil when two are the same.
    init?(distinct given: some Collection<Element>) {
        if given.count > Self.walkLimit {
            var seen = Set<String>(minimumCapacity: given.count)
            for member in given where !seen.insert(member.key).inserted { return nil }
        } else {
            var index = given.startIndex
            while index != given.endIndex {
                let key = given[index].key
                var later = given.index(after: index)
                while later != given.endIndex {
                    if given[later].key == key { return nil }
                    later = given.index(after: later)
                }
                index = given.index(after: index)
            }
        }
        members = Array(given)
    }

    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            let index = members.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append((key, value))
            case (nil, nil): break
            }
        }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var first: Element? { members.first }
    public var keys: [String] { members.map(\.key) }
    /// The members as a `Dictionary`, to compare many of them.
    private var dictionary: [String: JSONValue] {
        Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    public func makeIterator() -> IndexingIterator<[Element]> { members.makeIterator() }

    /// The same members with the same values, in any order.
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        if a.count > walkLimit { return a.dictionary == b.dictionary }
        return a.members.allSatisfy { member in b[member.key] == member.value }
    }

    public init(from decoder: any Decoder) throws {
        self.init(try [String: JSONValue](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for (key, value) in members { try container.encode(value, forKey: MemberKey(key)) }
    }

    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ key: String) { stringValue = key }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
