import Foundation

/// Fleet Engine's rule for a resource ID (a trip, vehicle, delivery vehicle, task or tracking ID),
/// from the SDK references' `GMTDFleetEngineIDString` / `GMTSFleetEngineIDString`
/// (https://developers.google.com/maps/documentation/mobility/driver-sdk/scheduled/reference/ios/Type-Definitions/GMTDFleetEngineIDString):
/// valid UTF-8 in Unicode normalisation form C, at most 64 characters, none of `/ : ? , #`.
/// Everything else is allowed: spaces, accents, other scripts. The server, the ID prompt, the ID
/// flags and the `authorization` rule all ask here, so they cannot disagree.
public enum FleetEngineID {
    /// Counted in Unicode code points, as Google's APIs count "characters" (AIP-210, "Unicode").
    public static let maximumLength = 64
    /// The characters an ID may not hold: they separate parts of a resource name or a URL.
    public static let forbiddenCharacters: [Unicode.Scalar] = ["/", ":", "?", ",", "#"]

    /// Why `id` can never name a Fleet Engine resource, or nil when it can. The wildcard `*` is a
    /// claim's business, not an ID's: callers decide whether they take it.
    public static func problem(_ id: String) -> String? {
        if id.isEmpty { return "it is empty" }
        // An ASCII ID (nearly every one; the tap asks for every token it reads) is read by its
        // bytes, which are its scalars, and is NFC as it stands.
        let ascii = id.utf8.allSatisfy { $0 < 0x80 }
        let length = ascii ? id.utf8.count : id.unicodeScalars.count
        if length > maximumLength {
            return "it is \(length) characters long; Fleet Engine IDs are at most \(maximumLength)"
        }
        let bad =
            ascii
            ? id.utf8.lazy.map(Unicode.Scalar.init).first(where: forbiddenCharacters.contains)
            : id.unicodeScalars.first(where: forbiddenCharacters.contains)
        if let bad { return "it contains '\(bad)'; Fleet Engine IDs may not contain \(forbiddenList)" }
        // Swift compares strings by canonical equivalence, so NFC is checked scalar by scalar;
        // Foundation's normalising was the dearest rule on every token read.
        if !ascii, !id.unicodeScalars.elementsEqual(id.precomposedStringWithCanonicalMapping.unicodeScalars) {
            return "it is not in Unicode normalisation form C (NFC), which Fleet Engine requires"
        }
        return nil
    }

    /// `/ : ? , #`, as messages name them.
    public static let forbiddenList = forbiddenCharacters.map { String($0) }.joined(separator: " ")

    /// Whether one typed character may go into an ID.
    public static func allows(_ character: Character) -> Bool {
        !character.unicodeScalars.contains(where: forbiddenCharacters.contains)
    }
}
