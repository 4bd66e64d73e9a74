import Foundation
import Testing

@testable import ProxyKit

/// Which proxy a request takes, as curl would choose it from the same environment.
@Suite(.timeLimit(.minutes(15))) struct ProxySettingsTests {
    func proxy(_ environment: [String: String], for url: String) throws -> String? {
        try ProxySettings.fromEnvironment(environment).server(for: try #require(URL(string: url)))?.address
    }

    @Test func eachSchemeHasItsVariable() throws {
        let env = ["https_proxy": "http://secure:3128", "http_proxy": "http://plain:8080"]
        #expect(try proxy(env, for: "https://backend.example/t") == "secure:3128")
        #expect(try proxy(env, for: "http://backend.example/t") == "plain:8080")
        #expect(try proxy([:], for: "https://backend.example/t") == nil)
    }

    @Test func upperCaseCountsExceptForHTTPProxyAndLowerCaseWins() throws {
        #expect(try proxy(["HTTPS_PROXY": "http://upper:1"], for: "https://b.example/") == "upper:1")
        #expect(
            try proxy(["HTTPS_PROXY": "http://upper:1", "https_proxy": "http://lower:2"], for: "https://b.example/")
                == "lower:2")
        // curl never reads HTTP_PROXY: a CGI server sets it from a request's Proxy: header.
        #expect(try proxy(["HTTP_PROXY": "http://attacker:1"], for: "http://b.example/") == nil)
        #expect(try proxy(["https_proxy": ""], for: "https://b.example/") == nil, "empty is unset")
    }

    @Test func allProxyServesBothSchemesWhenNoOwnVariableIsSet() throws {
        let env = ["ALL_PROXY": "http://all:3128", "https_proxy": "http://secure:3128"]
        #expect(try proxy(env, for: "http://b.example/") == "all:3128")
        #expect(try proxy(env, for: "https://b.example/") == "secure:3128")
    }

    @Test func noProxyMatchesNamesAndEverythingUnderThem() throws {
        let env = ["https_proxy": "http://p:1", "no_proxy": "example.com, .corp.test"]
        for direct in [
            "https://example.com/", "https://www.example.com/", "https://EXAMPLE.com./", "https://a.corp.test/",
            "https://corp.test/",
        ] {
            #expect(try proxy(env, for: direct) == nil, "\(direct)")
        }
        for proxied in ["https://notexample.com/", "https://example.com.evil/", "https://corp.test.example/"] {
            #expect(try proxy(env, for: proxied) == "p:1", "\(proxied)")
        }
        #expect(try proxy(["https_proxy": "http://p:1", "NO_PROXY": "*"], for: "https://anything/") == nil)
    }

    @Test func noProxyMatchesAddressesNetworksAndPorts() throws {
        let env = [
            "https_proxy": "http://p:1",
            "no_proxy": "10.0.0.0/8,192.168.1.7,::1,fd00::/8,[2001:db8::1]:8443,internal.test:8443",
        ]
        #expect(try proxy(env, for: "https://10.20.30.40/") == nil)
        #expect(try proxy(env, for: "https://11.0.0.1/") == "p:1")
        #expect(try proxy(env, for: "https://192.168.1.7/") == nil)
        #expect(try proxy(env, for: "https://192.168.1.8/") == "p:1")
        #expect(try proxy(env, for: "https://[::1]:8443/") == nil)
        #expect(try proxy(env, for: "https://[fd12::5]/") == nil)
        #expect(try proxy(env, for: "https://[fe80::1]/") == "p:1")
        #expect(try proxy(env, for: "https://[2001:db8::1]:8443/") == nil)
        #expect(try proxy(env, for: "https://[2001:db8::1]/") == "p:1")
        #expect(try proxy(env, for: "https://internal.test:8443/") == nil)
        #expect(try proxy(env, for: "https://internal.test/") == "p:1", "the entry names port 8443 only")
    }

    @Test func proxyURLsAreReadAsCurlReadsThem() throws {
        let bare = try ProxyServer(parsing: "proxy.corp", origin: "--proxy")
        #expect(bare.address == "proxy.corp:1080", "no scheme means http, no port means curl's 1080")
        let full = try ProxyServer(parsing: "http://us%40er:p%3Ass@[::1]:3128/", origin: "--proxy")
        #expect(full.address == "[::1]:3128")
        #expect(full.display == "http://‹hidden›@[::1]:3128")
        #expect(full == ProxyServer(host: "::1", port: 3128, username: "us@er", password: "p:ss"))
    }

    @Test func anUnusableProxyURLIsOneLineWithoutItsPassword() {
        func message(_ text: String) -> String {
            do {
                _ = try ProxyServer(parsing: text, origin: "https_proxy")
                return "accepted"
            } catch { return error.message }
        }
        #expect(
            message("socks5://u:secret@h:1080")
                == "https_proxy: only http:// proxies are supported, not socks5://: \"socks5://‹hidden›@h:1080\" (expected http://[user:password@]host[:port])"
        )
        #expect(message("http://u:secret@h:99999").hasPrefix("https_proxy: "))
        #expect(!message("http://u:secret@h:99999").contains("secret"))
        #expect(message("http://:3128").contains("no host"))
        #expect(throws: ProxyURLError.self) {
            try ProxySettings.fromEnvironment(["http_proxy": "https://tls-proxy:443"])
        }
    }

    @Test func theEmbeddedServerIsReachedDirect() throws {
        let settings = try ProxySettings.fromEnvironment(["http_proxy": "http://p:1"]).bypassing(host: "127.0.0.1")
        #expect(settings.server(for: try #require(URL(string: "http://127.0.0.1:4000/token"))) == nil)
        #expect(settings.server(for: try #require(URL(string: "http://backend.example/token")))?.address == "p:1")
    }
}
