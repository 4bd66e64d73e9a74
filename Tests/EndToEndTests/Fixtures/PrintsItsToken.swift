import GoogleRidesharingDriver

// Logs the token it hands back, as debugging code left in an app does.
class PrintsItsToken: NSObject, GMTDAuthorization {
    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        let token =
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwcmludGVkLXRva2VuLWZvci10ZXN0In0.c2lnbmF0dXJlLW9mLXRoZS1wcmludGVkLXRva2Vu"
        print("fetched token \(token) for \(authorizationContext?.vehicleID ?? "?")")
        completion(nil, URLError(.userAuthenticationRequired))
    }
}
