import AsyncHTTPClient
import ProxyKit

extension ProxyServer {
    /// Basic `Proxy-Authorization` from the URL's user and password, as curl sends it; the value
    /// (ProxyKit) knows nothing of AsyncHTTPClient, so the client's form of it is made here.
    var authorization: HTTPClient.Authorization? {
        username.map { .basic(username: $0, password: password ?? "") }
    }
}
