import Faults
import NetworkAddresses
import ProviderEvents
import ProviderVocabulary
import ProxyKit
import Testing

@testable import ProviderProxy

/// The loopback proxy's pure parts: a request's head as curl sends it to a proxy, what it sends
/// on, what each fault makes it do, and how it reads an answer passing through. No socket.
@Suite(.timeLimit(.minutes(15)))
struct ProxyParsingTests {
    @Test func anAbsoluteFormRequestNamesItsHostPortAndGoesOnInOriginForm() throws {
        let head = try ProxyRequestHead(
            parsing: "GET http://127.0.0.1:8080/session/driver?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                + "Proxy-Connection: Keep-Alive\r\nAccept: */*")
        #expect(head.host == "127.0.0.1" && head.port == 8080 && !head.isConnect)
        #expect(
            head.forwarded(toProxy: false, proxyAuthorization: nil)
                == "GET /session/driver?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        )
        #expect(
            head.forwarded(toProxy: true, proxyAuthorization: "Basic dTpw")
                == "GET http://127.0.0.1:8080/session/driver?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: */*\r\n"
                + "Proxy-Authorization: Basic dTpw\r\nConnection: close\r\n\r\n")
    }

    @Test func connectNamesItsTunnelAndDefaultsAreCurls() throws {
        let tunnel = try ProxyRequestHead(parsing: "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443")
        #expect(tunnel.isConnect && tunnel.host == "::1" && tunnel.port == 8443 && tunnel.authority == "[::1]:8443")
        let bare = try ProxyRequestHead(parsing: "GET http://user:pw@example.com HTTP/1.1")
        #expect(bare.host == "example.com" && bare.port == 80)
        #expect(bare.forwarded(toProxy: false, proxyAuthorization: nil).hasPrefix("GET / HTTP/1.1\r\n"))
    }

    @Test func whatTheProxyDoesNotTakeIsOneStatusAndOneLine() {
        func refusal(_ head: String) -> ProxyHeadError? {
            do {
                _ = try ProxyRequestHead(parsing: head)
                return nil
            } catch { return error }
        }
        #expect(refusal("GET /path HTTP/1.1") == .notAbsolute)
        #expect(refusal("GET https://example.com/ HTTP/1.1") == .notPlainHTTP)
        #expect(refusal("CONNECT example.com HTTP/1.1") == .badTarget)
        #expect(refusal("CONNECT example.com:99999 HTTP/1.1") == .badTarget)
        #expect(refusal("hello") == .badRequestLine)
        #expect(ProxyHeadError.notPlainHTTP.status == 501 && ProxyHeadError.tooLong.status == 431)
    }

    @Test func eachFaultIsOneActionAndInsideATunnelOnlyLatencyAndDropAct() {
        #expect(ProxyFaultAction.decide(nil, tunnel: false) == .forward(delayMilliseconds: 0))
        #expect(
            ProxyFaultAction.decide(FaultSetting(.latency, latencyMilliseconds: 1500), tunnel: true)
                == .forward(delayMilliseconds: 1500))
        #expect(ProxyFaultAction.decide(FaultSetting(.drop), tunnel: true) == .close)
        #expect(ProxyFaultAction.decide(FaultSetting(.http500), tunnel: true) == .forward(delayMilliseconds: 0))
        guard
            case .answer(let status, _, let headers, _) = ProxyFaultAction.decide(
                FaultSetting(.rateLimited), tunnel: false)
        else {
            Issue.record("429 not answered")
            return
        }
        #expect(status == 429 && headers.contains("Retry-After: \(Fault.retryAfterSeconds)"))
        for fault in Fault.allCases {
            let action = ProxyFaultAction.decide(FaultSetting(fault), tunnel: false)
            // What the proxy cannot act out goes on to the backend, whose own fault it is.
            #expect((action != .forward(delayMilliseconds: 0)) == fault.actsAtProxy, "\(fault)")
        }
    }

    @Test func aFaultsAnswerIsWholeHTTP() {
        guard
            case .answer(let status, let reason, let headers, let body) = ProxyFaultAction.decide(
                FaultSetting(.malformed), tunnel: false)
        else {
            Issue.record("not answered")
            return
        }
        let text = ProxyFaultAction.response(status: status, reason: reason, headerLines: headers, body: body)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body))
    }

    @Test func anAnswerIsReadAsItPassesWhateverItsChunks() {
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello".utf8)
        for cut in [1, 7, 20, answer.count - 1] {
            var meter = ResponseMeter()
            meter.feed(answer[..<cut])
            #expect(!meter.isComplete)
            meter.feed(answer[cut...])
            #expect(meter.status == 200 && meter.bodyBytes == 5 && meter.isComplete)
            #expect(meter.bodyStart == Array("hello".utf8), "the body kept whatever the cut")
        }
        var chunked = ResponseMeter()
        chunked.feed(Array("HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".utf8))
        #expect(chunked.status == 500 && !chunked.isComplete)
        var garbage = ResponseMeter()
        garbage.feed(Array("not http\r\n\r\nrest".utf8))
        #expect(garbage.status == nil && garbage.bodyBytes == garbage.totalBytes)
    }

    @Test func theLogLineSaysWhatAUserNeeds() {
        let http = BackendExchange(
            way: .http, method: "GET", target: "http://127.0.0.1:1/session/driver", status: 500, latency: 0.01,
            bytesUp: 0, bytesDown: 1234, fault: "http500")
        #expect(
            http.summary == "GET http://127.0.0.1:1/session/driver -> 500, 1.2 kB (fault http500 at tokendash's proxy)")
        #expect(http.failed)
        let tunnel = BackendExchange(
            way: .tunnel, method: "CONNECT", target: "example.com:443", latency: 0.2, bytesUp: 517, bytesDown: 4100)
        #expect(tunnel.summary == "tunnel example.com:443: 517 B up, 4.1 kB down")
        #expect(!tunnel.failed)
    }
}
