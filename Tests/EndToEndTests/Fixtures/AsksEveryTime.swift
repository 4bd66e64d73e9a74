import GoogleRidesharingDriver

private let providerURL = "INSERT_YOUR_TOKEN_PROVIDER_URL"

// Caches nothing: every call goes to the backend, so each fault shows on the next call.
class AsksEveryTime: NSObject, GMTDAuthorization {
    enum AccessTokenError: Error {
        case missingData
    }

    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        guard let url = URL(string: providerURL) else { return completion(nil, AccessTokenError.missingData) }
        URLSession.shared.dataTask(with: URLRequest(url: url)) { data, _, error in
            if let error { return completion(nil, error) }
            guard let data, let fields = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let token = fields["VEHICLE_TOKEN_KEY"] as? String
            else {
                return completion(nil, AccessTokenError.missingData)
            }
            completion(token, nil)
        }.resume()
    }
}
