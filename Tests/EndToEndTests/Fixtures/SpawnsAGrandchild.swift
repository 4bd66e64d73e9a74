import GoogleRidesharingDriver

// Starts a helper that ignores SIGTERM and sleeps for five minutes, as a class that launches a
// daemon would, and says its process ID; nothing of it may outlive the host.
class SpawnsAGrandchild: NSObject, GMTDAuthorization {
    private var started = false

    func fetchToken(
        with authorizationContext: GMTDAuthorizationContext?,
        completion: @escaping GMTDAuthTokenFetchCompletionHandler
    ) {
        if !started {
            started = true
            var pid: pid_t = 0
            let words: [String] = ["/bin/sh", "-c", "trap '' TERM; exec sleep 300"]
            var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            posix_spawn(&pid, "/bin/sh", nil, nil, &arguments, environ)
            print("grandchild \(pid)")
        }
        completion(nil, URLError(.userAuthenticationRequired))
    }
}
