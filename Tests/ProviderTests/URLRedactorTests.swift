import Foundation
import ProviderVocabulary
import Redaction
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(15))) struct URLRedactorTests {
    @Test func userInfoIsHidden() {
        #expect(
            URLRedactor.redact("https://fleet:hunter2@api.example.com/token/{tripId}")
                == "https://‹hidden›@api.example.com/token/{tripId}")
        #expect(URLRedactor.redact("https://APIKEY123@api.example.com/") == "https://‹hidden›@api.example.com/")
        #expect(URLRedactor.redact("https://u:p@ss@h/x") == "https://‹hidden›@h/x", "the last @ ends the user info")
    }

    @Test(arguments: [
        "key", "api_key", "apikey", "API_KEY", "token", "access_token", "secret", "client_secret", "password",
        "signature", "sig", "X-Goog-Signature", "X-Amz-Credential",
    ])
    func secretQueryValuesAreHidden(_ name: String) {
        #expect(
            URLRedactor.redact("https://h/t/{tripId}?region=eu&\(name)=S3CR3T#frag")
                == "https://h/t/{tripId}?region=eu&\(name)=‹hidden›#frag")
    }

    @Test func ordinaryURLsAreLeftAlone() {
        for url in [
            "http://127.0.0.1:8080/token/consumer/{tripId}", "https://h/t?tripId=a%2Fb&region=eu",
            "https://[::1]:9/t?x=1",
        ] {
            #expect(URLRedactor.redact(url) == url)
        }
    }

    @Test func urlsInsideTextAreRedacted() {
        let text =
            "redirect loop: after 2 hops (http://a/x?token=T1 -> https://u:p@b/y -> http://a/x?token=T1): \"see https://c/?sig=ZZ\""
        #expect(
            URLRedactor.redactURLs(in: text)
                == "redirect loop: after 2 hops (http://a/x?token=‹hidden› -> https://‹hidden›@b/y -> http://a/x?token=‹hidden›): \"see https://c/?sig=‹hidden›\""
        )
    }

    @Test func everyErrorThatPrintsAURLHidesItsSecrets() {
        let url = "https://me:pw123@h/t/{tripId}?key=K123"
        for error in [
            FleetAuthError.invalidURL(url), .unreachable(url: url, reason: "connection refused"),
            .other("redirected to \(url)"),
        ] {
            #expect(!error.description.contains("pw123") && !error.description.contains("K123"), "\(error.description)")
        }
    }
}

@Suite(.timeLimit(.minutes(15))) struct TokenEndpointEncodingTests {
    @Test func pathIDsEncodeEverythingButUnreserved() throws {
        let endpoint = TokenEndpoint(kind: .consumer, urlTemplate: "https://h/token/consumer/{tripId}")
        #expect(try endpoint.url(for: "a/b").absoluteString == "https://h/token/consumer/a%2Fb")
        #expect(try endpoint.url(for: "..").absoluteString == "https://h/token/consumer/%2E%2E")
        #expect(try endpoint.url(for: ".").absoluteString == "https://h/token/consumer/%2E")
        #expect(try endpoint.url(for: "trip.1").absoluteString == "https://h/token/consumer/trip.1")
        #expect(try endpoint.url(for: "a+b&c=d;e").absoluteString == "https://h/token/consumer/a%2Bb%26c%3Dd%3Be")
        #expect(try endpoint.url(for: "ü space").absoluteString == "https://h/token/consumer/%C3%BC%20space")
        #expect(try endpoint.url(for: "%41?#").absoluteString == "https://h/token/consumer/%2541%3F%23")
    }

    @Test func queryIDsEncodePlusAmpersandEqualsAndSemicolon() throws {
        let endpoint = TokenEndpoint(kind: .driver, urlTemplate: "https://h/token?kind=v#top")
        #expect(
            try endpoint.url(for: "a+b&c=d;e").absoluteString
                == "https://h/token?kind=v&vehicleId=a%2Bb%26c%3Dd%3Be#top")
        #expect(
            try TokenEndpoint(kind: .driver, urlTemplate: "https://h/token").url(for: "..").absoluteString
                == "https://h/token?vehicleId=..")
    }
}

/// The one redactor every output path uses: JWTs, URL credentials, and the values a run was given.
@Suite(.timeLimit(.minutes(15))) struct SecretRedactorTests {
    @Test func aJWTInAURLQueryIsNeverPrintedWhole() {
        let jwt = TestJWT.make(iat: 1, exp: 2, signature: "THE-SIGNATURE-0123456789abcdef")
        let shown = SecretRedactor.redact("tokendash watch: https://h/t/{tripId}?assertion=\(jwt)&region=eu")
        #expect(shown == "tokendash watch: https://h/t/{tripId}?assertion=‹hidden›&region=eu")
        let unnamed = SecretRedactor.redact("https://h/t/{tripId}?x=\(jwt)")
        #expect(!unnamed.contains(jwt) && !unnamed.contains("THE-SIGNATURE"), "\(unnamed)")
    }

    @Test func registeredHeaderValuesAreHiddenWhereverTheyAppear() {
        SecretRedactor.register("Bearer header-secret-for-redactor-test")
        SecretRedactor.register("session=cookie-secret-for-redactor-test; theme=dark")
        SecretRedactor.register("1")
        let body =
            #"{"you_sent":"Authorization: Bearer header-secret-for-redactor-test","token":"header-secret-for-redactor-test","c":"cookie-secret-for-redactor-test"}"#
        let shown = SecretRedactor.redact(body)
        #expect(
            !shown.contains("header-secret-for-redactor-test") && !shown.contains("cookie-secret-for-redactor-test"),
            "\(shown)")
        #expect(shown.contains("Authorization: ‹hidden›"))
        #expect(
            SecretRedactor.redact("retry 1 of 10") == "retry 1 of 10",
            "a value too short to be a credential garbles nothing")
    }
}
