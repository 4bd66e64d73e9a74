import BoundedYAML
import ConfigFile
import Foundation

// libFuzzer entry point for the config file reader. Not a SwiftPM target: scripts/fuzz.sh builds
// it with `swiftc -sanitize=fuzzer` against the sources. The input is the file's bytes, read as
// `ConfigFile.load` reads them: UTF-8 checked, then the YAML with its limits, then every value.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        let config = try ConfigFile(yaml: try BoundedYAML.text(data), path: "/fuzz/config.yaml")
        // What `config check` prints and a run resolves from the file must not trap either.
        keep(config.knownProfiles)
        for profile in config.profiles { keep(profile.settings.count) }
    } catch {
        keep("\(error)")
    }
    return 0
}

/// Holds a result the optimizer would otherwise drop together with the code that computes it.
@_optimize(none) private func keep<T>(_ value: T) {}
