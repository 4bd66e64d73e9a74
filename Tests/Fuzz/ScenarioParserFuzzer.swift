import BoundedYAML
import Foundation
import Scenarios

// libFuzzer entry point for the scenario parser (see ConfigReaderFuzzer.swift for how it is built).
// The input is a scenario file's bytes; an accepted scenario also has its steps described, as
// `scenario check` and the banner do, since a message about a step may not trap either.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        let scenario = try ScenarioParser.parse(try BoundedYAML.text(data), file: "/fuzz/scenario.yaml")
        for step in scenario.steps { keep("\(step)") }
        keep(scenario.needsEmbeddedServer)
    } catch {
        keep("\(error)")
    }
    return 0
}

/// Holds a result the optimizer would otherwise drop together with the code that computes it.
@_optimize(none) private func keep<T>(_ value: T) {}
