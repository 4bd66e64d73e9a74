import GoogleRidesharingDriver

// Never finishes being made.
class HangsInInit: NSObject, GMTDAuthorization {
    override init() {
        DispatchSemaphore(value: 0).wait()
        super.init()
    }

    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        completion(nil, nil)
    }
}
