import GoogleRidesharingDriver

// Waits inside fetchToken for something that never happens.
class BlocksItsCaller: NSObject, GMTDAuthorization {
    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        DispatchSemaphore(value: 0).wait()
        completion(nil, nil)
    }
}
