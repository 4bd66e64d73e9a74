import GoogleRidesharingDriver

// Force-unwraps a URL that is nil.
class ForceUnwrapsNil: NSObject, GMTDAuthorization {
    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        let url = URL(string: authorizationContext?.vehicleID == "never" ? "https://example.com" : "")
        completion(url!.absoluteString, nil)
    }
}
