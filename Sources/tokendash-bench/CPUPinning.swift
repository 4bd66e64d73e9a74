import Foundation
import Spawning

/// Pins every thread of a process to some CPUs with util-linux's `taskset -a` (Glibc's module in
/// Swift does not carry `sched_setaffinity`); threads made later inherit it from their makers.
/// The tap section uses it to give the proxy under test a core of its own, away from the client
/// and the upstream, as a tap in front of a real backend has: on two shared cores the scheduler's
/// queueing, not the proxy, sets much of the p99.
enum CPUPinning {
    /// Whether there are cores enough: one for the proxies and one for the rest.
    static var possible: Bool { ProcessInfo.processInfo.activeProcessorCount >= 2 }

    static func pin(_ pid: pid_t, to cpus: ClosedRange<Int>) throws {
        let child: pid_t
        do {
            child = try ChildProcess.spawn(
                ["/usr/bin/taskset", "-a", "-cp", "\(cpus.lowerBound)-\(cpus.upperBound)", "\(pid)"], stdin: .devNull,
                stdout: .devNull, stderr: .descriptor(2))
        } catch {
            throw MintBenchmark.BenchmarkError("cannot run taskset to pin \(pid): \(error)")
        }
        guard ChildProcess.waitHere(child) == 0 else {
            throw MintBenchmark.BenchmarkError("taskset could not pin \(pid) to CPUs \(cpus)")
        }
    }
}
