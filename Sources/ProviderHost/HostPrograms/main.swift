// tokendash's provider host: runs the customer's class as the SDK would.
//
// One instance of the class for the whole run, each request line a `fetchToken` call on a
// worker's thread (`Worker`), each completion and each return a line back (the protocol is in
// docs/your-provider.md). Glibc and pthreads, not Foundation: Foundation's locks and caches
// (JSONSerialization, Thread, NSLock) order the class's threads for ThreadSanitizer, which then
// misses the race the class has on a phone. The host is built without optimisation under
// --no-sanitize (and with -O under ThreadSanitizer), where Swift's generic String and Array code
// costs more than a call: lines are read and written as raw bytes with memchr, memcmp and memcpy.
// Its names sit in `TokendashHost`, so they cannot clash with the class's file, which shares the
// module.
//
// This file is built as written for a driver class named `TokendashStubProvider` (CI builds it so,
// against a stub); for the customer's class, `StandInSDK.hostMain` replaces three things: the module
// imported, the context made, and the class's name. SwiftPM embeds it (`.embedInCode`).
@_spi(TokendashHost) import GoogleRidesharingDriver
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

enum TokendashHost {
    /// The messages go out on descriptor 4 and the requests come in on 3, descriptors of the
    /// protocol's own: the class's stdin is /dev/null and its stdout and stderr are its prints,
    /// so nothing it reads is a request and nothing it prints can pass for a message.
    static let requests: Int32 = 3
    static let channel: Int32 = 4
    /// Orders whole lines. The thread reading requests never takes it, so it adds no
    /// ordering between the class's threads that ThreadSanitizer would trust.
    nonisolated(unsafe) static var channelLock = pthread_mutex_t()
    /// What a JSON string must escape: the quote, the backslash and the control characters.
    static let escapable = "\"\\" + String((1..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })

    /// One line out, its bytes gathered with memcpy and written with one write.
    struct Line {
        var bytes: UnsafeMutablePointer<UInt8>
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        }

        mutating func append(_ base: UnsafeRawPointer, _ length: Int) {
            if count + length > capacity {
                capacity = max(capacity * 2, count + length)
                let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
                memcpy(grown, bytes, count)
                bytes.deallocate()
                bytes = grown
            }
            memcpy(bytes + count, base, length)
            count += length
        }

        mutating func append(_ text: String) {
            var text = text
            text.withUTF8 { utf8 in
                if let base = utf8.baseAddress { append(base, utf8.count) }
            }
        }

        mutating func append(number: Int) {
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
            var value = number.magnitude
            withUnsafeMutableBytes(of: &digits) { raw in
                guard let base = raw.baseAddress else { return }
                var cursor = raw.count - 1
                repeat {
                    raw[cursor] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                    value /= 10
                    cursor -= 1
                } while value > 0
                if number < 0 {
                    raw[cursor] = 0x2d
                    cursor -= 1
                }
                append(base + cursor + 1, raw.count - 1 - cursor)
            }
        }

        /// `text` as a JSON string. A token needs no escaping: it is copied whole, found so by libc.
        mutating func append(quoted text: String) {
            let count = text.utf8.count
            if text.withCString({ strcspn($0, TokendashHost.escapable) == count }) {
                append("\"")
                append(text)
                append("\"")
                return
            }
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
            append(out + "\"")
        }

        /// Ends the line and writes it whole, under the lock that keeps lines apart; frees it.
        mutating func send() {
            append("\n")
            pthread_mutex_lock(&TokendashHost.channelLock)
            var offset = 0
            while offset < count {
                let written = write(TokendashHost.channel, bytes + offset, count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { exit(0) }
                offset += written
            }
            pthread_mutex_unlock(&TokendashHost.channelLock)
            bytes.deallocate()
        }
    }

    static func send(_ text: String) {
        var line = Line(capacity: 64)
        line.append(text)
        line.send()
    }

    /// The value of `"key":` in the request line `start..<end`, which tokendash writes itself:
    /// a number or a string (an escaped character kept as the one after its backslash).
    static func field(_ key: String, in start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> String? {
        let pattern = "\"" + key + "\":"
        let length = pattern.utf8.count
        var p = start
        var found = false
        pattern.withCString { wanted in
            while p.distance(to: end) >= length {
                guard let quote = memchr(p, 0x22, p.distance(to: end)) else { return }
                p = UnsafePointer(quote.assumingMemoryBound(to: UInt8.self))
                if p.distance(to: end) < length { return }
                if memcmp(p, wanted, length) == 0 {
                    found = true
                    return
                }
                p += 1
            }
        }
        guard found else { return nil }
        p += length
        if p < end, p.pointee != 0x22 {
            let from = p
            while p < end, p.pointee >= 0x30, p.pointee <= 0x39 { p += 1 }
            return String(decoding: UnsafeBufferPointer(start: from, count: from.distance(to: p)), as: UTF8.self)
        }
        p += 1
        var value: [UInt8] = []
        var escaped = false
        while p < end {
            let c = p.pointee
            if escaped {
                value.append(c)
                escaped = false
            } else if c == 0x5c {
                escaped = true
            } else if c == 0x22 {
                return String(decoding: value, as: UTF8.self)
            } else {
                value.append(c)
            }
            p += 1
        }
        return nil
    }

    /// Handed to a worker through an atomic as a retained pointer; its fields are immutable.
    final class Request: Sendable {
        let call: Int
        let id: String
        let task: String?
        init(call: Int, id: String, task: String?) { (self.call, self.id, self.task) = (call, id, task) }
    }

    static func run(_ request: Request) {
        let context = GMTDAuthorizationContext(vehicleID: request.id, taskID: request.task)
        provider.fetchToken(with: context) { token, error in
            var line = Line(capacity: 1024)
            line.append("{\"t\":\"completion\",\"call\":")
            line.append(number: request.call)
            if let token {
                line.append(",\"token\":")
                line.append(quoted: token)
            }
            if let error {
                line.append(",\"error\":")
                line.append(quoted: String(describing: error))
            }
            line.append("}")
            line.send()
        }
        var line = Line(capacity: 64)
        line.append("{\"t\":\"returned\",\"call\":")
        line.append(number: request.call)
        line.append("}")
        line.send()
    }

    /// A thread parked on a semaphore of its own until the reading thread posts it a call.
    ///
    /// Workers are reused, in turn, and handed calls so that ThreadSanitizer sees no order
    /// between two calls but the one the class makes itself. The reading thread posts a worker's
    /// semaphore, an order from the reader to the call as a thread's start is; a worker says it
    /// is idle again through a relaxed atomic, which orders nothing, so the reader never takes an
    /// order from a finished call (a queue of parked workers under a lock would give it one, and
    /// hide the race). Two calls in a row never run on one thread: a race between them is
    /// between two threads, as on a phone, where the SDK's queues call from several. Starting
    /// a thread for every call did the same at 230 µs of CPU a call under the sanitizer.
    final class Worker: @unchecked Sendable {  // Shared with its thread through the atomics and the semaphore only.
        let ready = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        /// Set by the worker when its call has returned, cleared by the reader as it hands one over.
        let idle = Atomic<Bool>(false)
        /// The call handed over: a retained `Request`'s address, stored before `ready` is posted.
        let handed = Atomic<UInt>(0)
        init() { sem_init(ready, 0, 0) }
        deinit {
            sem_destroy(ready)
            ready.deallocate()
        }
    }

    /// Every worker started, and which ran the last call; touched only by the reading thread.
    nonisolated(unsafe) static var workers: [Worker] = []
    nonisolated(unsafe) static var last = -1

    /// Starts a worker's thread parked until a call is posted, or nil if no thread starts.
    static func prepare() -> Worker? {
        let worker = Worker()
        let box = Unmanaged.passRetained(worker).toOpaque()
        var thread = pthread_t()
        // 512 KiB, an iOS secondary thread's stack (the SDK's queues run on such threads).
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 512 << 10)
        defer { pthread_attr_destroy(&attributes) }
        let started = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                let worker = Unmanaged<TokendashHost.Worker>.fromOpaque(raw).takeRetainedValue()
                while true {
                    while sem_wait(worker.ready) != 0, errno == EINTR {}
                    let address = worker.handed.exchange(0, ordering: .relaxed)
                    guard let call = UnsafeMutableRawPointer(bitPattern: address) else { return nil }
                    TokendashHost.run(Unmanaged<TokendashHost.Request>.fromOpaque(call).takeRetainedValue())
                    worker.idle.store(true, ordering: .relaxed)
                }
            }, box)
        guard started == 0 else {
            Unmanaged<Worker>.fromOpaque(box).release()
            return nil
        }
        pthread_detach(thread)
        return worker
    }

    /// Hands one call to a worker's thread, as the SDK's queues would call on one of theirs:
    /// the first idle one after the last call's, never that one; a new one when none is idle.
    static func start(_ request: Request) {
        var chosen: Int?
        for step in 1..<max(1, workers.count) {
            let index = (last + step) % workers.count
            if workers[index].idle.load(ordering: .relaxed) {
                chosen = index
                break
            }
        }
        if chosen == nil {
            guard let worker = prepare() else { return }
            workers.append(worker)
            chosen = workers.count - 1
        }
        guard let index = chosen else { return }
        last = index
        let worker = workers[index]
        worker.idle.store(false, ordering: .relaxed)
        worker.handed.store(UInt(bitPattern: Unmanaged.passRetained(request).toOpaque()), ordering: .relaxed)
        sem_post(worker.ready)
    }

    /// Reads request lines from descriptor 3 until it closes, each one a call.
    static func serve() {
        let size = 1 << 16
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        var filled = 0
        while true {
            // A line longer than the buffer is not one tokendash writes: it is dropped.
            if filled == size { filled = 0 }
            let count = read(requests, buffer + filled, size - filled)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return }
            filled += count
            var start = UnsafePointer(buffer)
            let end = start + filled
            while let newline = memchr(start, 0x0a, start.distance(to: end)) {
                let stop = UnsafePointer(newline.assumingMemoryBound(to: UInt8.self))
                if let call = field("call", in: start, stop).flatMap({ Int($0) }), let id = field("id", in: start, stop)
                {
                    TokendashHost.start(Request(call: call, id: id, task: field("task", in: start, stop)))
                }
                start = stop + 1
            }
            filled = start.distance(to: end)
            if filled > 0, start != UnsafePointer(buffer) { memmove(buffer, start, filled) }
        }
    }
}

// What the class starts inherits neither protocol descriptor.
_ = fcntl(TokendashHost.requests, F_SETFD, FD_CLOEXEC)
_ = fcntl(TokendashHost.channel, F_SETFD, FD_CLOEXEC)
// The status the class passes to exit(), said before ThreadSanitizer, having reported a race, may
// replace it with its own: one short write, no lock (another thread may hold the line lock).
on_exit(
    { status, _ in
        var text = Array("{\"t\":\"exiting\",\"status\":\(status)}\n".utf8)
        _ = write(TokendashHost.channel, &text, text.count)
    }, nil)
// Line by line, so what the class prints shows as it prints it, not when a buffer fills.
setvbuf(stdout, nil, _IOLBF, 0)
pthread_mutex_init(&TokendashHost.channelLock, nil)
let provider = TokendashStubProvider()
TokendashHost.send("{\"t\":\"ready\"}")
TokendashHost.serve()
exit(0)
