import Foundation
import ProviderVocabulary
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport tokendash used before HTTPTransport: HTTP GET through Linux URLSession (libcurl),
/// with a hard cap on the body. Kept only as the `transport` benchmark's baseline; it cannot trust a
/// private CA, reach `http://[::1]`, or say why a request failed.
final class URLSessionTransport: TokenTransport {
    private let session: URLSession
    private let receiver: Receiver

    init() {
        let config = URLSessionConfiguration.ephemeral
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.httpMaximumConnectionsPerHost = 16
        receiver = Receiver()
        session = URLSession(configuration: config, delegate: receiver, delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        // URLSession on Linux does not apply a request's own timeoutInterval reliably (seen: a 0.3 s
        // timeout waited 3 s), so the deadline is enforced here by racing a timer.
        try await withThrowingTaskGroup(of: TransportResponse.self) { group in
            group.addTask { try await self.exchange(request) }
            group.addTask {
                try await Task.sleep(for: .seconds(request.timeout))
                throw FleetAuthError.timeout(seconds: request.timeout)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw FleetAuthError.cancelled }
            return first
        }
    }

    private func exchange(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        let task = session.dataTask(with: urlRequest)
        let id = task.taskIdentifier
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<TransportResponse, any Error>) in
                receiver.register(
                    id, cap: request.maxBodyBytes, url: request.url, timeout: request.timeout,
                    continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Collects bodies per task. Shared by every request of the session.
    private final class Receiver: NSObject, URLSessionDataDelegate, Sendable {
        struct Pending {
            var data = Data()
            var status = 0
            var headers: [String: String] = [:]
            var tooLarge = false
            let cap: Int
            let url: URL
            let timeout: TimeInterval
            let continuation: CheckedContinuation<TransportResponse, any Error>
        }
        // Guards the in-flight tasks; touched from the caller's task and URLSession's delegate queue.
        private let pending = Mutex<[Int: Pending]>([:])

        func register(
            _ id: Int, cap: Int, url: URL, timeout: TimeInterval,
            continuation: CheckedContinuation<TransportResponse, any Error>
        ) {
            pending.withLock { $0[id] = Pending(cap: cap, url: url, timeout: timeout, continuation: continuation) }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            let http = response as? HTTPURLResponse
            let status = http?.statusCode ?? 0
            // TransportResponse lower-cases the names.
            var headers: [String: String] = [:]
            for (name, value) in http?.allHeaderFields ?? [:] {
                if let name = name as? String, let value = value as? String { headers[name] = value }
            }
            let tooLarge = pending.withLock { state -> Bool in
                state[dataTask.taskIdentifier]?.status = status
                state[dataTask.taskIdentifier]?.headers = headers
                guard let cap = state[dataTask.taskIdentifier]?.cap else { return false }
                if response.expectedContentLength > Int64(cap) {
                    state[dataTask.taskIdentifier]?.tooLarge = true
                    return true
                }
                return false
            }
            completionHandler(tooLarge ? .cancel : .allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let overflow = pending.withLock { state -> Bool in
                guard var p = state[dataTask.taskIdentifier] else { return false }
                if p.data.count + data.count > p.cap {
                    p.tooLarge = true
                    p.data = Data()
                } else {
                    p.data.append(data)
                }
                state[dataTask.taskIdentifier] = p
                return p.tooLarge
            }
            if overflow { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let p = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            if p.tooLarge {
                p.continuation.resume(throwing: FleetAuthError.bodyTooLarge(limit: p.cap))
            } else if let error {
                p.continuation.resume(throwing: Self.translate(error, url: p.url, timeout: p.timeout))
            } else {
                p.continuation.resume(returning: TransportResponse(status: p.status, body: p.data, headers: p.headers))
            }
        }

        static func translate(_ error: any Error, url: URL, timeout: TimeInterval) -> FleetAuthError {
            guard let urlError = error as? URLError else {
                return .unreachable(url: url.absoluteString, reason: "\(error)")
            }
            let reason: String
            switch urlError.code {
            case .timedOut: return .timeout(seconds: timeout)
            case .cancelled: return .cancelled
            case .cannotConnectToHost: reason = "connection refused"
            case .networkConnectionLost: reason = "connection lost before the response was complete (reset or closed)"
            case .cannotFindHost, .dnsLookupFailed: reason = "host not found"
            case .badServerResponse: reason = "malformed HTTP response"
            case .secureConnectionFailed: reason = "TLS handshake failed"
            case .unsupportedURL: reason = "unsupported URL"
            default: reason = "URL error \(urlError.code.rawValue)"
            }
            return .unreachable(url: url.absoluteString, reason: reason)
        }
    }
}
