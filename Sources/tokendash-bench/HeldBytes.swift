import Fleet
import Foundation
import ProviderEvents
import ProviderVocabulary
import TokenJudging
import TokenProviders
import TokenReading

#if canImport(Glibc)
    import Glibc
#endif

/// What the process keeps, beyond what RSS says: glibc's own count of the bytes in live
/// allocations (`mallinfo2`), and handing freed pages back (`malloc_trim`). Neither is in Swift's
/// Glibc module, so both are looked up by name.
enum HeldBytes {
    /// Bytes in live allocations now, over every arena, mmapped blocks included; nil where
    /// glibc's `mallinfo2` cannot be called (see `mallinfo2`).
    static func now() -> Int? {
        guard let info = mallinfo2() else { return nil }
        return info.uordblks + info.hblkhd
    }

    /// Hands freed pages back to the system, so a baseline taken after an earlier run is not
    /// inflated by what that run freed (and the next run's growth understated).
    static func releaseFreed() { FreedMemory.release() }

    /// The two fields of `struct mallinfo2` used here.
    struct Info {
        var uordblks: Int
        var hblkhd: Int
    }

    /// `struct mallinfo2 mallinfo2(void)` returns ten `size_t`s, 80 bytes: on x86_64 Linux through a
    /// hidden pointer to the caller's memory, passed as the first argument and returned (the
    /// System V ABI's `sret`), which a C function of one pointer argument is called like. Other
    /// architectures pass that pointer elsewhere, so there it is not called.
    private static func mallinfo2() -> Info? {
        #if canImport(Glibc) && arch(x86_64)
            typealias MallInfo2 = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "mallinfo2") else { return nil }
            let fields = UnsafeMutablePointer<Int>.allocate(capacity: 10)
            defer { fields.deallocate() }
            _ = unsafeBitCast(symbol, to: MallInfo2.self)(UnsafeMutableRawPointer(fields))
            // arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost
            return Info(uordblks: fields[7], hblkhd: fields[4])
        #else
            return nil
        #endif
    }

    /// Live bytes per object for `count` objects made by `make` and kept: the objects' own heap
    /// and their inline size in the array that keeps them (reserved first, as a provider's field).
    static func perObject<T>(_ count: Int, _ make: (Int) throws -> T) rethrows -> Int? {
        var kept: [T] = []
        kept.reserveCapacity(count)
        guard let before = now() else { return nil }
        for i in 0..<count { kept.append(try make(i)) }
        guard let after = now() else { return nil }
        return withExtendedLifetime(kept) { (after - before) / count + MemoryLayout<T>.stride }
    }

    /// Where a provider's bytes go: one real response from the embedded server decoded `count`
    /// times, whole and in its parts, and providers with no token.
    static func breakdown(
        response: TransportResponse, endpoint: TokenEndpoint, id: String,
        transport: any TokenTransport
    ) throws -> [(String, String)] {
        let count = 5000
        let decoder = TokenResponseDecoder(endpoint: endpoint)
        let now = Date()
        let sample = try decoder.decode(response, id: id, now: now)
        let token = sample.token
        func shown(_ bytes: Int?) -> String { bytes.map { "\($0) B" } ?? "(no mallinfo2 here)" }
        let whole = try perObject(count) { _ in try decoder.decode(response, id: id, now: now) }
        let text = perObject(count) { _ in String(decoding: Array(token.utf8), as: UTF8.self) }
        let jwt = try perObject(count) { _ in try JWTInspector.decode(token) }
        let findings = perObject(count) { _ in TokenRules.evaluate(sample.jwt, kind: endpoint.kind, id: id, now: now) }
        let events = EventBroadcaster()
        let provider = perObject(count) { _ in
            CachingTokenProvider<TripAuthorizationContext>(
                endpoint: endpoint, transport: transport, refreshMargin: 300, events: events)
        }
        return [
            (
                "live bytes: a decoded token as its fetched event carries it",
                "\(shown(whole)) (\(sample.findings.count) findings kept)"
            ),
            ("  its text (\(token.utf8.count) characters)", shown(text)),
            ("  its decoded JWT (header, claims; the signature a slice of the text)", shown(jwt)),
            ("  every rule's finding, before the ones that say nothing were dropped", shown(findings)),
            ("live bytes: a provider with no token (one event stream for all)", shown(provider)),
        ]
    }
}
