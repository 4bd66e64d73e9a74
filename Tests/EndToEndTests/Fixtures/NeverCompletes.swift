import GoogleRidesharingDriver

// Keeps the completion and never calls it.
class NeverCompletes: NSObject, GMTDAuthorization {
    private let lock = NSLock()
    private var kept: [GMTDAuthTokenFetchCompletionHandler] = []

    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        lock.lock()
        kept.append(completion)
        lock.unlock()
    }
}
