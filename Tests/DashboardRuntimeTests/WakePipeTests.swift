import Testing

@testable import Terminal

/// The pipe that ends a screen's wait for a key at once, when another thread has news.
@Suite(.timeLimit(.minutes(15))) struct WakePipeTests {
    /// A waker can outlive the screen that made it: the logs screen's signal task, told to stop
    /// as the screen quits, wakes a loop already gone. Held by the waker, the pipe is still open
    /// then; holding only its descriptor, the write met a closed read end and SIGPIPE ended
    /// `tokendash logs` at q in 7 of 25 tries.
    @Test func aWakerKeepsItsPipeOpen() {
        var pipe: WakePipe? = WakePipe()
        weak var held = pipe
        let wake = pipe?.wake
        pipe = nil
        #expect(held != nil, "the waker holds the pipe")
        wake?()
    }
}
