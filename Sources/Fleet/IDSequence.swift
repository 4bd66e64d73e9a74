/// Generates the next trip or vehicle ID the way a demo expects: `trip-0001` → `trip-0002`.
public enum IDSequence {
    /// Increments the trailing number, keeping its zero padding; an ID without one gets `-2`.
    public static func next(after id: String) -> String {
        let digits = id.reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let value = Int(String(digits.reversed())) else { return id + "-2" }
        let stem = id.dropLast(digits.count)
        let number = String(value + 1)
        let padding = String(repeating: "0", count: max(0, digits.count - number.count))
        return stem + padding + number
    }

    /// The `index`-th (0-based) ID of a fleet of `count`, e.g. `trip-00042` for 10,000 trips.
    public static func fleetID(prefix: String, index: Int, count: Int) -> String {
        let width = max(4, String(count).count)
        let number = String(index + 1)
        return "\(prefix)-" + String(repeating: "0", count: max(0, width - number.count)) + number
    }
}
