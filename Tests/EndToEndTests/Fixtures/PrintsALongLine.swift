import GoogleRidesharingDriver

// Prints one line of 10,000 bytes, far longer than anyone reads, and fails each call.
class PrintsALongLine: NSObject, GMTDAuthorization {
    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        print(String(repeating: "x", count: 10_000))
        completion(nil, URLError(.userAuthenticationRequired))
    }
}
