import Dashboard
import DashboardRuntime
import Foundation
import Recording

// libFuzzer entry point for the recording reader (see ConfigReaderFuzzer.swift for how it is
// built). The input is a recording's bytes (a JSON header line, then JSON lines). What could be
// read is then played as `replay` plays it: every action through the reducer and the fleet
// aggregate, the screen drawn at the end, and each event described.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        var recording = try Recording.parse(data, name: "/fuzz/r.jsonl")
        // The second-by-second ticks a `watch` recording gets are the same action over and
        // over; without them each input costs its lines, not its seconds.
        recording.header.ticks = true
        let timeline = ReplayTimeline(recording, initial: recording.header.initialState())
        let (state, _) = timeline.fold(to: timeline.end)
        keep(Renderer.render(state, width: 80, height: 24))
        keep(recording.events.map { "\($0)" })
        keep(recording.problems)
    } catch {
        keep("\(error)")
    }
    return 0
}

/// Holds a result the optimizer would otherwise drop together with the code that computes it.
@_optimize(none) private func keep<T>(_ value: T) {}
