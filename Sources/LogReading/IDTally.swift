/// What one vehicle, trip, delivery vehicle or task did in an export: its calls, errors by code,
/// methods, first and last call, the SDK header as it changed, and its cadence. Per ID, never per
/// call: every list in it is bounded.
public struct IDTally: Sendable, Equatable {
    public let id: LoggedID
    public private(set) var calls = 0
    public private(set) var errors: [String: Int] = [:]
    public private(set) var methods: [String: Int] = [:]
    public private(set) var first: LogInstant?
    public private(set) var last: LogInstant?
    public private(set) var cadence = CallCadence()
    /// The device's header at each change, in the order read (at most `maxHeaderChanges`).
    public private(set) var headerChanges: [HeaderChange] = []
    /// The latest header (by the entries' time) that names a device.
    public private(set) var header: SDKHeader?
    private var headerTime: LogInstant?
    /// The last few error messages, newest read last.
    public private(set) var errorMessages: [String] = []

    static let maxHeaderChanges = 32
    static let maxErrorMessages = 8
    /// Distinct method names and error codes kept per ID; more are counted under "(other)".
    static let maxNames = 64

    public struct HeaderChange: Sendable, Equatable {
        public var time: LogInstant
        public var header: SDKHeader
    }

    public init(id: LoggedID) { self.id = id }

    public mutating func add(_ entry: LogEntry) {
        calls += 1
        if first.map({ entry.time < $0 }) ?? true { first = entry.time }
        if last.map({ entry.time > $0 }) ?? true { last = entry.time }
        cadence.add(entry.time)
        Self.count(entry.method ?? "unknown", in: &methods)
        if let error = entry.error {
            Self.count(error.code, in: &errors)
            if let message = error.message, !message.isEmpty {
                errorMessages.append(String(message.prefix(200)))
                if errorMessages.count > Self.maxErrorMessages { errorMessages.removeFirst() }
            }
        }
        // A call from the customer's server carries no SDK header: it does not change the device's.
        if let next = entry.header, next.namesDevice {
            if headerChanges.last?.header != next, headerChanges.count < Self.maxHeaderChanges {
                headerChanges.append(HeaderChange(time: entry.time, header: next))
            }
            if headerTime.map({ entry.time >= $0 }) ?? true {
                header = next
                headerTime = entry.time
            }
        }
    }

    /// One hash of `name` when it is counted already (the usual case: a few methods per ID).
    static func count(_ name: String, in tally: inout [String: Int]) {
        if let index = tally.index(forKey: name) {
            tally.values[index] += 1
        } else if tally.count < maxNames {
            tally[name] = 1
        } else {
            tally["(other)", default: 0] += 1
        }
    }

    /// Calls per minute over the ID's own span (first to last call, at least a minute).
    public var callsPerMinute: Double {
        guard let first, let last else { return 0 }
        return Double(calls) / max(1, first.seconds(to: last) / 60)
    }

    public var silences: [Silence] { cadence.silences }
}
