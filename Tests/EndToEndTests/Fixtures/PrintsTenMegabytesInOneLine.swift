import GoogleRidesharingDriver

// Writes 10 MB to stderr with no newline in it, in one go, as a class dumping a buffer would.
class PrintsTenMegabytesInOneLine: NSObject, GMTDAuthorization {
    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        FileHandle.standardError.write(Data(repeating: UInt8(ascii: "x"), count: 10_000_000))
        completion(nil, URLError(.userAuthenticationRequired))
    }
}
