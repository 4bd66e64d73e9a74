import FleetAuth
import Foundation
import Testing
@testable import ProviderHost

@Suite(.timeLimit(.minutes(1)))
struct ProviderSourceFileTests {
    @Test func placeholdersAreFilledAndReported() {
        let text = "let u = \"INSERT_YOUR_TOKEN_PROVIDER_URL\"\nlet k = \"VEHICLE_TOKEN_KEY\"\nlet e = \"TOKEN_EXPIRATION\"\n"
        let (filled, fillings) = Placeholders.fill(text, role: .driver, providerURL: "http://127.0.0.1:1/session/driver")
        #expect(filled == "let u = \"http://127.0.0.1:1/session/driver\"\nlet k = \"jwt\"\nlet e = \"expirationTimestamp\"\n")
        #expect(fillings.map(\.line) == [1, 2, 3])
    }
}
