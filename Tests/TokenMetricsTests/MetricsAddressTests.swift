import Testing
import TokenMetrics

/// `--metrics` listens on loopback unless the operator asks for more.
@Suite(.timeLimit(.minutes(15))) struct MetricsAddressTests {
    @Test func loopbackAddressesNeedNoPermission() throws {
        #expect(try MetricsAddress(parsing: "127.0.0.1:9464", allowRemote: false).description == "127.0.0.1:9464")
        #expect(try MetricsAddress(parsing: "127.8.9.1:1", allowRemote: false).host == "127.8.9.1")
        #expect(try MetricsAddress(parsing: "[::1]:9464", allowRemote: false).description == "[::1]:9464")
        #expect(try MetricsAddress(parsing: "localhost:9464", allowRemote: false).host == "127.0.0.1")
        #expect(try MetricsAddress(parsing: "9464", allowRemote: false).description == "127.0.0.1:9464")
    }

    @Test func anyOtherAddressIsRefusedWithoutAllowRemote() throws {
        for text in ["0.0.0.0:9464", "10.1.2.3:9464", "[::]:9464", "[2001:db8::1]:80"] {
            #expect(throws: MetricsAddressError.remoteNotAllowed(text)) {
                try MetricsAddress(parsing: text, allowRemote: false)
            }
            #expect(try MetricsAddress(parsing: text, allowRemote: true).port > 0)
        }
        let message = MetricsAddressError.remoteNotAllowed("0.0.0.0:9464").description
        #expect(message.contains("--allow-remote") && !message.contains("\n"))
    }

    @Test func malformedAddressesSayWhy() {
        #expect(throws: MetricsAddressError.badPort("127.0.0.1:http")) {
            try MetricsAddress(parsing: "127.0.0.1:http", allowRemote: false)
        }
        #expect(throws: MetricsAddressError.badPort("127.0.0.1:70000")) {
            try MetricsAddress(parsing: "127.0.0.1:70000", allowRemote: false)
        }
        #expect(throws: MetricsAddressError.notAnAddress("::1:9464")) {
            try MetricsAddress(parsing: "::1:9464", allowRemote: false)
        }
        #expect(throws: MetricsAddressError.notAnAddress("example.com:9464")) {
            try MetricsAddress(parsing: "example.com:9464", allowRemote: true)
        }
    }
}
