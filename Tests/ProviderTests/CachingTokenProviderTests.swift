import Foundation
import ProviderEvents
import ProviderVocabulary
import Synchronization
import TestSupport
import Testing
import TokenProviders
import TokenReading

@Suite(.timeLimit(.minutes(15))) struct CachingTokenProviderTests {
    let clock = ManualClock()

    func consumer(_ transport: FakeTransport, margin: TimeInterval = 300, events: EventBroadcaster = EventBroadcaster())
        -> ConsumerTokenProvider
    {
        ConsumerTokenProvider(
            endpoint: consumerEndpoint(), transport: transport, refreshMargin: margin,
            clock: clock, events: events, random: { 0.5 })
    }

    @Test func reusesAValidTokenForTheSameID() async throws {
        let transport = mintingTransport(kind: .consumer, clock: clock)
        let provider = consumer(transport)
        let first = try await provider.fetchToken(for: trip("trip-1"))
        clock.advance(by: 60)
        let second = try await provider.fetchToken(for: trip("trip-1"))
        #expect(first == second)
        #expect(transport.count == 1)
    }

    @Test func asksWithTheIDInTheURL() async throws {
        let transport = mintingTransport(kind: .driver, clock: clock)
        let provider = DriverTokenProvider(endpoint: driverEndpoint(), transport: transport, clock: clock)
        // A space, a `;`, an `&` and an accent: all in Fleet Engine IDs, all encoded in a path.
        let token = try await provider.fetchToken(for: vehicle("vehicle 7;x&é"))
        #expect(transport.urls.map(\.absoluteString) == ["http://backend.test/token/driver/vehicle%207%3Bx%26%C3%A9"])
        #expect(try JWTInspector.decode(token).claims["authorization"]?["vehicleid"] == .string("vehicle 7;x&é"))
    }

    @Test func dropsTheTokenWhenTheIDChanges() async throws {
        let transport = mintingTransport(kind: .consumer, clock: clock)
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        let provider = consumer(transport, events: events)
        let a = try await provider.fetchToken(for: trip("trip-1"))
        let b = try await provider.fetchToken(for: trip("trip-2"))
        #expect(a != b)
        #expect(transport.count == 2)
        #expect(try JWTInspector.decode(b).claims["authorization"]?["tripid"] == .string("trip-2"))
        try await recorder.next("fetch_started (ID changed)") { $0.fetchReason == .idChanged }
        #expect(
            recorder.all.map(\.name) == ["fetch_started", "fetched", "id_changed", "cache_dropped", "fetch_started"])
        #expect(recorder.all.contains { $0.kind == .idChanged(from: "trip-1", to: "trip-2") })
        // Going back to trip-1 is a change too: its old token is not resurrected.
        let again = try await provider.fetchToken(for: trip("trip-1"))
        #expect(again != a)
        #expect(try JWTInspector.decode(again).claims["authorization"]?["tripid"] == .string("trip-1"))
        #expect(transport.count == 3)
    }

    @Test func refreshesAheadOfExpiryWhileServingTheOldToken() async throws {
        let transport = mintingTransport(kind: .consumer, clock: clock, lifetime: 600)
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        let provider = consumer(transport, margin: 300, events: events)
        let first = try await provider.fetchToken(for: trip("t"))
        #expect(try await recorder.next(named: "fetched").token?.token == first)
        clock.advance(by: 299)
        #expect(try await provider.fetchToken(for: trip("t")) == first)
        #expect(transport.count == 1, "outside the margin the cache answers")
        clock.advance(by: 2)
        #expect(try await provider.fetchToken(for: trip("t")) == first, "inside the margin the old token is served")
        let refreshed = try #require(try await recorder.next(named: "fetched").token)
        #expect(transport.count == 2)
        #expect(refreshed.token != first)
        #expect(try await provider.fetchToken(for: trip("t")) == refreshed.token)
        #expect(recorder.all.compactMap(\.fetchReason) == [.noToken, .refreshAhead])
    }

    @Test func aShortLivedTokenIsNotRefreshedOnEveryCall() async throws {
        // 60 s tokens under the default 300 s margin: refresh at half-life, not at once.
        let transport = mintingTransport(kind: .consumer, clock: clock, lifetime: 60)
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        let provider = consumer(transport, margin: 300, events: events)
        let first = try await provider.fetchToken(for: trip("t"))
        clock.advance(by: 29)
        #expect(try await provider.fetchToken(for: trip("t")) == first)
        #expect(await !provider.isFetching, "31 s left is outside the capped 30 s margin")
        #expect(transport.count == 1)
        clock.advance(by: 2)
        #expect(
            try await provider.fetchToken(for: trip("t")) == first,
            "29 s left: the old token is served while the refresh runs")
        let refreshed = try #require(
            try await recorder.next("refresh-ahead fetched") { $0.isFetched && $0.time == clock.now() }.token)
        #expect(refreshed.token != first)
        #expect(recorder.all.compactMap(\.fetchReason) == [.noToken, .refreshAhead])
        #expect(await eventually { await provider.cachedToken?.token == refreshed.token })
        #expect(transport.count == 2)
    }

    @Test(arguments: [(0.0, 270.0), (0.999_999, 330.0)])
    func theRefreshPointIsJitteredSoAFleetDoesNotRefreshInStep(unit: Double, marginSeen: Double) async throws {
        // A 300 s margin is ±10 %: between 270 and 330 s before expiry, drawn once per token.
        let transport = mintingTransport(kind: .consumer, clock: clock, lifetime: 3600)
        let provider = ConsumerTokenProvider(
            endpoint: consumerEndpoint(), transport: transport, refreshMargin: 300,
            clock: clock, random: { unit })
        let first = try await provider.fetchToken(for: trip("t"))
        let token = try #require(await provider.cachedToken)
        #expect(token.token == first)
        let refreshAt = try #require(token.refreshAt)
        #expect(abs(token.expiresAt.timeIntervalSince(refreshAt) - marginSeen) < 0.01)
        clock.set(refreshAt.addingTimeInterval(-1))
        #expect(try await provider.fetchToken(for: trip("t")) == first)
        #expect(await !provider.isFetching && transport.count == 1, "a second before the drawn point the cache answers")
        clock.set(refreshAt)
        #expect(
            try await provider.fetchToken(for: trip("t")) == first, "the valid token is served while the refresh runs")
        #expect(await eventually { transport.count == 2 }, "at the drawn point the refresh starts")
    }

    @Test func zeroMarginWaitsForExpiryAsTheSamplesDo() async throws {
        let transport = mintingTransport(kind: .consumer, clock: clock, lifetime: 600)
        let provider = consumer(transport, margin: 0)
        let first = try await provider.fetchToken(for: trip("t"))
        clock.advance(by: 599)
        #expect(try await provider.fetchToken(for: trip("t")) == first)
        #expect(transport.count == 1)
        clock.advance(by: 1)
        #expect(try await provider.fetchToken(for: trip("t")) != first)
        #expect(transport.count == 2)
    }

    @Test func forceRefreshFetchesANewTokenEvenWhenValid() async throws {
        let transport = mintingTransport(kind: .consumer, clock: clock)
        let provider = consumer(transport)
        let first = try await provider.fetchToken(for: trip("t"))
        let forced = try await provider.forceRefresh()
        #expect(forced != first)
        #expect(try await provider.fetchToken(for: trip("t")) == forced)
        #expect(transport.count == 2)
    }

    @Test func forceRefreshWithoutAnIDIsAnError() async throws {
        let provider = consumer(mintingTransport(kind: .consumer, clock: clock))
        await #expect(throws: FleetAuthError.missingAuthorizationContext(.consumer)) {
            try await provider.forceRefresh()
        }
    }

    @Test func missingContextIsAnError() async throws {
        let transport = mintingTransport(kind: .consumer, clock: clock)
        let provider = consumer(transport)
        await #expect(throws: FleetAuthError.missingAuthorizationContext(.consumer)) {
            try await provider.fetchToken(for: nil)
        }
        await #expect(throws: FleetAuthError.missingAuthorizationContext(.consumer)) {
            try await provider.fetchToken(for: trip(""))
        }
        #expect(transport.count == 0)
    }

    @Test func completionHandlerFormDeliversTokenOrError() async throws {
        let provider = consumer(mintingTransport(kind: .consumer, clock: clock))
        let (token, error): (String?, (any Error)?) = await withCheckedContinuation { c in
            provider.fetchToken(with: trip("t")) { token, error in c.resume(returning: (token, error)) }
        }
        #expect(token?.split(separator: ".").count == 3)
        #expect(error == nil)
        let failed: (String?, (any Error)?) = await withCheckedContinuation { c in
            provider.fetchToken(with: nil) { token, error in c.resume(returning: (token, error)) }
        }
        #expect(failed.0 == nil)
        #expect(failed.1 as? FleetAuthError == .missingAuthorizationContext(.consumer))
    }

    @Test func aThousandConcurrentCallersMakeOneRequest() async throws {
        let gate = Gate()
        let transport = mintingTransport(kind: .consumer, clock: clock, gate: gate)
        let provider = consumer(transport)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1000 { group.addTask { try await provider.fetchToken(for: trip("t")) } }
            // Every caller must be waiting on the fetch before it is allowed to finish.
            #expect(await eventually { await provider.waitingCallers == 1000 })
            await gate.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(transport.count == 1)
        #expect(tokens.count == 1000)
        #expect(Set(tokens).count == 1)
    }

    @Test func everyWaiterGetsTheError() async throws {
        let gate = Gate()
        let transport = FakeTransport { _ in
            await gate.wait()
            return TransportResponse(status: 503, body: Data("maintenance".utf8))
        }
        let provider = consumer(transport)
        let errors = await withTaskGroup(of: FleetAuthError?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do {
                        _ = try await provider.fetchToken(for: trip("t"))
                        return nil
                    } catch { return error as? FleetAuthError }
                }
            }
            #expect(await eventually { await provider.waitingCallers == 50 })
            await gate.open()
            return await group.reduce(into: [FleetAuthError?]()) { $0.append($1) }
        }
        #expect(transport.count == 1)
        #expect(errors.count == 50)
        #expect(errors.allSatisfy { $0 == .httpStatus(code: 503, body: "maintenance") })
    }

    @Test func aResponseForTheOldIDIsNeverCachedOrReturnedForTheNewOne() async throws {
        let slowGate = Gate()
        let serial = Mutex(0)
        let clock = self.clock
        // trip-old's answer is held back until after the switch; trip-new's comes at once.
        let transport = FakeTransport { request in
            let id = requestedID(request)
            if id == "trip-old" { await slowGate.wait() }
            let n = serial.withLock {
                $0 += 1
                return $0
            }
            let now = Int(clock.now().timeIntervalSince1970)
            return TestJWT.response(
                TestJWT.make(kind: .consumer, id: id, iat: now, exp: now + 3600, signature: "s\(n)"),
                expiresAtSeconds: now + 3600)
        }
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        let provider = consumer(transport, events: events)
        let oldCaller = Task { try await provider.fetchToken(for: trip("trip-old")) }
        #expect(await eventually { await provider.waitingCallers == 1 })
        let newToken = try await provider.fetchToken(for: trip("trip-new"))
        await slowGate.open()
        await #expect(throws: FleetAuthError.superseded(requested: "trip-old", current: "trip-new")) {
            try await oldCaller.cancellingValue
        }
        #expect(try JWTInspector.decode(newToken).claims["authorization"]?["tripid"] == .string("trip-new"))
        #expect(try await provider.fetchToken(for: trip("trip-new")) == newToken)
        #expect(await provider.cachedToken?.id == "trip-new")
        try await recorder.next("superseded failure") {
            $0.failure == .superseded(requested: "trip-old", current: "trip-new")
        }
    }

    @Test func failuresBackOffAndRecover() async throws {
        let failing = Mutex(true)
        let clock = self.clock
        let transport = FakeTransport { request in
            if failing.withLock({ $0 }) { return TransportResponse(status: 500, body: Data()) }
            let now = Int(clock.now().timeIntervalSince1970)
            return TestJWT.response(
                TestJWT.make(kind: .consumer, id: requestedID(request), iat: now, exp: now + 3600),
                expiresAtSeconds: now + 3600)
        }
        let provider = consumer(transport)
        await #expect(throws: FleetAuthError.httpStatus(code: 500, body: "")) {
            try await provider.fetchToken(for: trip("t"))
        }
        // Within the 1 s backoff the caller is told so at once, without a request.
        await #expect(
            throws: FleetAuthError.backingOff(
                retryInSeconds: 1, lastError: "backend answered HTTP 500 Internal Server Error")
        ) {
            try await provider.fetchToken(for: trip("t"))
        }
        #expect(transport.count == 1)
        clock.advance(by: 1)
        await #expect(throws: FleetAuthError.httpStatus(code: 500, body: "")) {
            try await provider.fetchToken(for: trip("t"))
        }
        #expect(transport.count == 2)
        clock.advance(by: 1.5)
        await #expect(
            throws: FleetAuthError.backingOff(
                retryInSeconds: 1, lastError: "backend answered HTTP 500 Internal Server Error")
        ) {
            try await provider.fetchToken(for: trip("t"))
        }
        #expect(transport.count == 2, "the second failure doubled the delay to 2 s")
        clock.advance(by: 0.5)
        failing.withLock { $0 = false }
        let recovered = try await provider.fetchToken(for: trip("t"))
        #expect(try JWTInspector.decode(recovered).claims["authorization"]?["tripid"] == .string("t"))
        #expect(await provider.cachedToken?.token == recovered)
        #expect(transport.count == 3)
    }

    /// Each failure says when the next request may go and which failure in a row it was, so a
    /// screen can show "retrying in N s (attempt k)".
    @Test func aFailureAnnouncesItsBackoff() async throws {
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        let provider = consumer(FakeTransport { _ in TransportResponse(status: 500, body: Data()) }, events: events)
        let start = clock.now()
        await #expect(throws: FleetAuthError.httpStatus(code: 500, body: "")) {
            try await provider.fetchToken(for: trip("t"))
        }
        let first = try await recorder.next(named: "backing_off")
        #expect(first.kind == .backingOff(until: start.addingTimeInterval(1), attempt: 1))
        clock.advance(by: 1)
        await #expect(throws: FleetAuthError.httpStatus(code: 500, body: "")) {
            try await provider.fetchToken(for: trip("t"))
        }
        let second = try await recorder.next(named: "backing_off")
        #expect(second.kind == .backingOff(until: start.addingTimeInterval(3), attempt: 2), "the delay doubled")
    }

    @Test func forceRefreshIgnoresBackoff() async throws {
        let transport = FakeTransport { _ in TransportResponse(status: 500, body: Data()) }
        let provider = consumer(transport)
        await #expect(throws: FleetAuthError.httpStatus(code: 500, body: "")) {
            try await provider.fetchToken(for: trip("t"))
        }
        await #expect(
            throws: FleetAuthError.backingOff(
                retryInSeconds: 1, lastError: "backend answered HTTP 500 Internal Server Error")
        ) {
            try await provider.fetchToken(for: trip("t"))
        }
        await #expect(throws: FleetAuthError.httpStatus(code: 500, body: "")) { try await provider.forceRefresh() }
        #expect(transport.count == 2)
    }

    @Test func aValidTokenIsStillServedWhileRefreshAheadFails() async throws {
        let failing = Mutex(false)
        let clock = self.clock
        let transport = FakeTransport { request in
            if failing.withLock({ $0 }) { return TransportResponse(status: 502, body: Data("bad gateway".utf8)) }
            let now = Int(clock.now().timeIntervalSince1970)
            return TestJWT.response(
                TestJWT.make(kind: .consumer, id: requestedID(request), iat: now, exp: now + 600),
                expiresAtSeconds: now + 600)
        }
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        let provider = consumer(transport, margin: 300, events: events)
        let token = try await provider.fetchToken(for: trip("t"))
        failing.withLock { $0 = true }
        clock.advance(by: 400)
        #expect(try await provider.fetchToken(for: trip("t")) == token)
        let failure = try await recorder.next(named: "fetch_failed")
        #expect(failure.failure == .httpStatus(code: 502, body: "bad gateway"))
        // Backing off: the next call serves the cached token without another request.
        #expect(try await provider.fetchToken(for: trip("t")) == token)
        #expect(transport.count == 2)
        clock.advance(by: 2)
        #expect(try await provider.fetchToken(for: trip("t")) == token)
        let again = try await recorder.next(named: "fetch_failed")
        #expect(again.failure == .httpStatus(code: 502, body: "bad gateway"))
        #expect(again.time == clock.now())
        #expect(transport.count == 3, "after the backoff the refresh is tried again")
    }

    @Test func anExpiredTokenIsReportedAndReplaced() async throws {
        let transport = mintingTransport(kind: .consumer, clock: clock, lifetime: 60)
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        let provider = consumer(transport, margin: 0, events: events)
        let first = try await provider.fetchToken(for: trip("t"))
        let issued = clock.now()
        clock.advance(by: 61)
        let replacement = try await provider.fetchToken(for: trip("t"))
        #expect(replacement != first)
        #expect(transport.count == 2)
        let expired = try await recorder.next(named: "expired")
        #expect(expired.kind == .expired(at: issued.addingTimeInterval(60)))
        try await recorder.next("fetch_started (expired)") { $0.fetchReason == .expired }
    }

    @Test func everySubscriberSeesEveryEvent() async throws {
        let events = EventBroadcaster()
        let a = EventRecorder(events)
        let b = EventRecorder(events)
        let provider = consumer(mintingTransport(kind: .consumer, clock: clock), events: events)
        let first = try await provider.fetchToken(for: trip("t"))
        #expect(try await provider.fetchToken(for: trip("t")) == first)
        for recorder in [a, b] {
            try await recorder.next(named: "cache_hit")
            #expect(recorder.all.map(\.name) == ["fetch_started", "fetched", "cache_hit"])
        }
    }
}

/// A backend with its own token cache answers a refresh-ahead with the token we already hold.
@Suite(.timeLimit(.minutes(15))) struct ReservedTokenTests {
    @Test func refreshAheadBacksOffWhenTheSameTokenComesBackAndSaysSoOnce() async throws {
        let clock = ManualClock()
        let t = Int(clock.now().timeIntervalSince1970)
        // The backend minted one 600 s token and serves it until it expires.
        let jwt = TestJWT.make(kind: .consumer, id: "trip-1", iat: t, exp: t + 600)
        let transport = FakeTransport { _ in TestJWT.response(jwt, expiresAtSeconds: t + 600) }
        let events = EventBroadcaster()
        let recorder = EventRecorder(events)
        let provider = ConsumerTokenProvider(
            endpoint: consumerEndpoint(), transport: transport, refreshMargin: 300,
            backoff: BackoffPolicy(initial: 10, maximum: 60, jitter: 0), clock: clock,
            events: events, random: { 0.5 })
        #expect(try await provider.fetchToken(for: trip("trip-1")) == jwt)
        #expect(transport.count == 1)

        // Past the refresh point: one refresh-ahead, which brings back the same token.
        clock.advance(by: 301)
        #expect(try await provider.fetchToken(for: trip("trip-1")) == jwt)
        let token = try #require(
            try await recorder.next("re-served fetched") { $0.isFetched && $0.time == clock.now() }.token)
        #expect(token.token == jwt)
        #expect(
            token.warnings == [
                "refresh: the backend re-served the token we hold (299 s left); refresh-ahead backs off instead of asking at every update"
            ])
        #expect(transport.count == 2)

        // SDK updates every second for 9 s: no request (the first backoff is 10 s).
        for _ in 0..<9 {
            clock.advance(by: 1)
            #expect(try await provider.fetchToken(for: trip("trip-1")) == jwt)
        }
        #expect(transport.count == 2, "no request at every update")
        clock.advance(by: 1.5)
        #expect(try await provider.fetchToken(for: trip("trip-1")) == jwt)
        let again = try #require(
            try await recorder.next("second re-served fetched") { $0.isFetched && $0.time == clock.now() }.token)
        #expect(transport.count == 3)
        #expect(again.token == jwt)
        #expect(again.warnings.isEmpty, "said once, not at every re-serve")
        // The backoff doubles: 20 s until the next try.
        #expect(again.refreshAt == clock.now().addingTimeInterval(20))
    }
}
