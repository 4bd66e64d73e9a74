import GoogleRidesharingDriver

// Starts a helper that ignores SIGTERM and sleeps for five minutes, says its process ID, and
// crashes: the helper must die with the host it outlived.
class SpawnsAGrandchildAndCrashes: NSObject, GMTDAuthorization {
    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        var pid: pid_t = 0
        let words: [String] = ["/bin/sh", "-c", "trap '' TERM; exec sleep 300"]
        var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        posix_spawn(&pid, "/bin/sh", nil, nil, &arguments, environ)
        print("grandchild \(pid)")
        fflush(stdout)
        fatalError("crashed on purpose")
    }
}
