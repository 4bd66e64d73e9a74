import BoundedYAML
import Dashboard
import Foundation

// libFuzzer entry point for the theme loader (see ConfigReaderFuzzer.swift for how it is built).
// The input is a theme file's bytes; an accepted theme is also drawn with, once, small.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        let theme = try ThemeLoader.parse(try BoundedYAML.text(data), name: "fuzz", file: "/fuzz/fuzz.yaml")
        let state = DashboardState(
            consumerID: "trip-1", driverID: "vehicle-1", now: Date(timeIntervalSince1970: 1_800_000_000),
            backend: "fuzz", faultsAvailable: false, theme: theme)
        keep(Renderer.render(state, width: 40, height: 12))
    } catch {
        keep("\(error)")
    }
    return 0
}

/// Holds a result the optimizer would otherwise drop together with the code that computes it.
@_optimize(none) private func keep<T>(_ value: T) {}
