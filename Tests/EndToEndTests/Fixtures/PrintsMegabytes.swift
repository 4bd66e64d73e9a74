import GoogleRidesharingDriver

// Logs far more than anyone reads.
class PrintsMegabytes: NSObject, GMTDAuthorization {
    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        let line = String(repeating: "debug ", count: 40)
        while true { print(line) }
    }
}
