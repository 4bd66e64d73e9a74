import GoogleRidesharingDriver

// Calls its completion twice for every call.
class CompletesTwice: NSObject, GMTDAuthorization {
    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        completion(nil, URLError(.badServerResponse))
        completion(nil, URLError(.badServerResponse))
    }
}
