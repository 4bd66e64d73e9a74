import Foundation

// Benchmark sections by name, run in this order when none is named on the command line:
// `swift run -c release tokendash-bench [--json] [SECTION...]`. Add a section by adding a line here
// and its code in a file of its own.
let sections: KeyValuePairs<String, @Sendable () async throws -> Void> = [
    "provider": ProviderBenchmark.run,
    "mint": MintBenchmark.run,
    "render": RenderBenchmark.run,
    "evidence": EvidenceBenchmark.run,
    "fleet": FleetMemoryBenchmark.run,
    "transport": TransportBenchmark.run,
    "fleet-engine": FleetEngineCallBenchmark.run,
    "metrics": MetricsBenchmark.run,
    "source": SourceProviderBenchmark.run,
    "ramp": FleetRampBenchmark.run,
    "tap": TapBenchmark.run,
    "tap-saturation": TapSaturationBenchmark.run,
    "tap-soak": TapSoakBenchmark.run,
    "tap-reader": TapReaderBenchmark.run,
    "logs": LogsBenchmark.run,
]
// Run only when named: minutes long.
let onRequest: Set<String> = ["ramp", "tap-soak", "tap-reader", "logs"]

// The mint section re-executes this binary as its token server, so the server's CPU is its own.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == ServerProcess.childFlag {
    await ServerProcess.serve(keyFile: CommandLine.arguments[2])
}

// The tap section re-executes this binary as the tap and as the bare proxy it is compared with.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == TapBenchmark.childFlag {
    await TapBenchmark.serve(mode: CommandLine.arguments[2], upstream: CommandLine.arguments[3])
}

var requested = Array(CommandLine.arguments.dropFirst())
if requested.contains("--help") || requested.contains("-h") {
    print(
        """
        usage: tokendash-bench [--json] [SECTION...]
        Each figure is printed beside a baseline measured in the same run; --json prints one object a figure.
        sections, in the order they run: \(sections.map(\.key).filter { !onRequest.contains($0) }.joined(separator: ", "))
        only when named (minutes long): \(sections.map(\.key).filter(onRequest.contains).joined(separator: ", "))
        """)
    exit(0)
}
if let flag = requested.firstIndex(of: "--json") {
    requested.remove(at: flag)
    BenchReport.useJSON()
}
let names = sections.map(\.key)
if let unknown = requested.first(where: { !names.contains($0) }) {
    FileHandle.standardError.write(
        Data("tokendash-bench: no section \"\(unknown)\"; sections: \(names.joined(separator: ", "))\n".utf8))
    exit(2)
}
#if DEBUG
    FileHandle.standardError.write(
        Data("tokendash-bench: debug build; numbers mean little (use swift run -c release)\n".utf8))
#endif
for (name, run) in sections where requested.isEmpty ? !onRequest.contains(name) : requested.contains(name) {
    BenchReport.say("== \(name)")
    do { try await run() } catch {
        FileHandle.standardError.write(Data("tokendash-bench: \(name) failed: \(error)\n".utf8))
        exit(1)
    }
    BenchReport.say("")
}
