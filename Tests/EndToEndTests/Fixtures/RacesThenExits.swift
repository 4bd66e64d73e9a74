import GoogleRidesharingDriver

// Counts its calls in a plain variable (two calls from two threads race on it) and, at its
// third call, exits with status 0, as a class giving up on an error might.
class RacesThenExits: NSObject, GMTDAuthorization {
    private var calls = 0

    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        calls += 1
        if calls >= 3 { exit(0) }
        completion(nil, URLError(.userAuthenticationRequired))
    }
}
