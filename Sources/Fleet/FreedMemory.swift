#if canImport(Glibc)
    import Glibc
#endif

/// Hands the pages malloc holds free back to the system. A fleet's cold start makes tens of
/// megabytes of short-lived garbage (responses, events) that glibc keeps mapped in its arenas:
/// without this an operator's `ps` and process metrics show about 4 KB per SDK held where the
/// providers keep about 2 KB (`tokendash-bench fleet`). `malloc_trim` is not in Swift's Glibc
/// module, so it is looked up by name; elsewhere (musl, Darwin) this does nothing.
public enum FreedMemory {
    public static func release() {
        #if canImport(Glibc)
            typealias Trim = @convention(c) (Int) -> Int32
            if let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") { _ = unsafeBitCast(symbol, to: Trim.self)(0) }
        #endif
    }
}
