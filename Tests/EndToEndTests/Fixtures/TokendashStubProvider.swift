import GoogleRidesharingDriver

// The stub the Swift host's file is written for: CI builds that file as it stands against this class.
class TokendashStubProvider: NSObject, GMTDAuthorization {
    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        completion("stub-token-for-\(authorizationContext?.vehicleID ?? "?")", nil)
    }
}
