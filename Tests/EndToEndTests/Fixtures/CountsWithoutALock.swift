import GoogleRidesharingDriver

private let providerURL = "INSERT_YOUR_TOKEN_PROVIDER_URL"

// Counts its calls in a plain variable: two calls in a row from two of the SDK's threads race on
// it, even one after the other, as nothing orders them but the SDK's queues.
class CountsWithoutALock: NSObject, GMTDAuthorization {
    enum AccessTokenError: Error {
        case missingData
    }

    private var calls = 0

    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        calls += 1
        guard let url = URL(string: providerURL) else { return completion(nil, AccessTokenError.missingData) }
        URLSession.shared.dataTask(with: URLRequest(url: url)) { data, _, error in
            guard error == nil, let data, let fields = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let token = fields["VEHICLE_TOKEN_KEY"] as? String
            else {
                return completion(nil, AccessTokenError.missingData)
            }
            completion(token, nil)
        }.resume()
    }
}
