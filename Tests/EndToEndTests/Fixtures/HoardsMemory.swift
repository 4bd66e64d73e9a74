import GoogleRidesharingDriver

// Fills memory it never lets go, a megabyte at a time, as a cache without a bound does.
class HoardsMemory: NSObject, GMTDAuthorization {
    private var hoard: [[UInt8]] = []

    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        while true { hoard.append([UInt8](repeating: 1, count: 1 << 20)) }
    }
}
