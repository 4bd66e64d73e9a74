import GoogleRidesharingDriver

// Reads its stdin in each way a Swift class can, as a class waiting for input would, and says
// what it got: the host's requests must never be among it.
class ReadsStdin: NSObject, GMTDAuthorization {
    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        let line = readLine()
        var bytes = [UInt8](repeating: 0, count: 256)
        let count = read(0, &bytes, bytes.count)
        let data = FileHandle.standardInput.readDataToEndOfFile()
        let got = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self) + String(decoding: data, as: UTF8.self)
        print("readLine: \(line ?? "nil") | read(0): \(count) | standardInput: \(data.count) bytes | \(got)")
        completion(nil, URLError(.userAuthenticationRequired))
    }
}
