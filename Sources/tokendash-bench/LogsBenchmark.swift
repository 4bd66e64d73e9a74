import Foundation
import LogReading
import LogsScreen
import Spawning

/// `tokendash logs --summary` over a generated export (issue 60): `update_vehicle` entries of
/// 10,000 vehicles, one a line as a Cloud Storage sink writes them, against `jq -c .` over the same
/// file in the same run (what a support engineer reaches for). Each reads on one core; the figures
/// are megabytes read per CPU second and each process's peak RSS. 1 GB by default;
/// TOKENDASH_BENCH_LOGS_MB sets the size (1 to 16,384).
enum LogsBenchmark {
    static let vehicles = 10_000

    @Sendable static func run() async throws {
        let megabytes = try size()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-logs-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("export.jsonl").path
        let (bytes, entries) = try generate(file, megabytes: megabytes)
        guard let jq = ChildProcess.onPath("jq") else { throw MintBenchmark.BenchmarkError("no jq on PATH") }
        let baseline = try await timed([jq, "-c", ".", file], output: "/dev/null")
        let summary = folder.appendingPathComponent("summary.json").path
        let reader = try await timed(
            [try FleetRampBenchmark.tokendashBesideTheBench(), "logs", "--summary", file], output: summary)
        let read = try String(contentsOfFile: summary, encoding: .utf8)
        guard read.contains("\"entries\":\(entries),") else {
            throw MintBenchmark.BenchmarkError("the summary does not count \(entries) entries: \(read.prefix(200))")
        }
        let rate = { (run: Run) in Double(bytes) / 1e6 / max(run.ending.cpu, 1e-9) }
        MintBenchmark.printTable([
            ("export", "\(bytes / 1_000_000) MB, \(entries) update_vehicle entries, \(vehicles) vehicles"),
            ("baseline: jq -c .", describe(baseline, rate: rate(baseline))),
            (
                "tokendash logs --summary",
                describe(reader, rate: rate(reader))
                    + String(format: "  (%.1fx jq's throughput)", rate(reader) / rate(baseline))
            ),
        ])
        BenchReport.figure("logs_mb_per_cpu_s", value: rate(reader), unit: "MB/s", baseline: rate(baseline))
        BenchReport.figure(
            "logs_peak_rss_mib", value: Double(reader.ending.peakKiB) / 1024, unit: "MiB",
            baseline: Double(baseline.ending.peakKiB) / 1024)
        try seekBack(file)
    }

    /// The logs screen's seek back: from the end to the middle, its tally built again from the
    /// export's start, beside reading the export with the calls kept (what opening the screen costs).
    static func seekBack(_ file: String) throws {
        let clock = ContinuousClock()
        var reader = ExportReader()
        var timeline = ExportTimeline()
        reader.onEntry = { timeline.add($0) }
        let readStart = clock.now
        reader.read(path: file)
        timeline.finish()
        let read = clock.now - readStart
        guard var player = LogsPlayer(timeline, whole: LogSummary(reader)) else {
            throw MintBenchmark.BenchmarkError("the export has no calls to play")
        }
        let middle = player.from.adding(seconds: player.from.seconds(to: player.to) / 2)
        let seekStart = clock.now
        player.seek(to: middle)
        let seek = clock.now - seekStart
        MintBenchmark.printTable([
            (
                "baseline: the read, calls kept",
                String(format: "%.2f s, %d calls", MetricsBenchmark.seconds(read), timeline.count)
            ),
            (
                "seek back to the middle",
                String(format: "%.3f s (%d calls folded)", MetricsBenchmark.seconds(seek), player.shown.calls)
            ),
        ])
        BenchReport.figure(
            "logs_seek_back_ms", value: MetricsBenchmark.seconds(seek) * 1000, unit: "ms",
            baseline: MetricsBenchmark.seconds(read) * 1000)
    }

    static func size() throws -> Int {
        guard let text = ProcessInfo.processInfo.environment["TOKENDASH_BENCH_LOGS_MB"] else { return 1024 }
        guard let value = Int(text), (1...16_384).contains(value) else {
            throw MintBenchmark.BenchmarkError("TOKENDASH_BENCH_LOGS_MB is \(text); give 1 to 16384")
        }
        return value
    }

    /// One run to its end: its CPU time and peak RSS (from `wait4`), and its wall time.
    struct Run {
        var ending: ChildProcess.Ending
        var wall: Double
    }

    static func timed(_ arguments: [String], output: String) async throws -> Run {
        let start = ContinuousClock.now
        let pid = try ChildProcess.spawn(arguments, output: output, errors: "/dev/null")
        let ending = await ChildProcess.ending(of: pid)
        guard ending.status == 0 else {
            throw MintBenchmark.BenchmarkError("\(arguments.joined(separator: " ")) exited \(ending.status)")
        }
        return Run(ending: ending, wall: MintBenchmark.seconds(ContinuousClock.now - start))
    }

    static func describe(_ run: Run, rate: Double) -> String {
        String(
            format: "%.0f MB/s of CPU (%.1f CPU-s, %.1f s wall), peak RSS %d MiB", rate, run.ending.cpu, run.wall,
            run.ending.peakKiB / 1024)
    }

    /// Writes at least `megabytes` of entries; returns the bytes and entries written. Each entry is
    /// an `UpdateVehicleLog` as Fleet Engine logs one (ODRD "Logging" guide; Fleet Engine's
    /// `RequestHeader` and `Vehicle`): request and response carrying the vehicle's location, every
    /// 997th a NOT_FOUND, a third of the vehicles on an older SDK.
    static func generate(_ path: String, megabytes: Int) throws -> (bytes: Int, entries: Int) {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw MintBenchmark.BenchmarkError("cannot write \(path)") }
        defer { try? handle.close() }
        let target = megabytes * 1_000_000
        var written = 0
        var entries = 0
        var buffer = ""
        while written < target {
            buffer.removeAll(keepingCapacity: true)
            while buffer.utf8.count < 1 << 20 {
                buffer += entry(entries)
                buffer += "\n"
                entries += 1
            }
            try handle.write(contentsOf: Data(buffer.utf8))
            written += buffer.utf8.count
        }
        return (written, entries)
    }

    /// 2024-05-01T10:00:00Z, and 2,000 entries a second from there (10,000 drivers every 5 s).
    static func entry(_ index: Int) -> String {
        let vehicle = index % vehicles
        let micros = 1_714_557_600_000_000 + index * 500
        let time = timestamp(micros)
        let latitude = 37.4 + Double((index * 7919) % 100_000) / 1e6
        let longitude = -122.1 + Double((index * 104_729) % 100_000) / 1e6
        let location = """
            {"location":{"latitude":\(latitude),"longitude":\(longitude)},"updateTime":"\(time)",\
            "heading":\(index % 360),"speed":\(Double(index % 2000) / 100),"speedAccuracy":1.5,\
            "locSensor":"LOCATION_SENSOR_GPS","rawLocation":{"latitude":\(latitude),"longitude":\(longitude)},\
            "rawLocationSensor":"LOCATION_SENSOR_GPS","rawLocationTime":"\(time)","isGpsSensorEnabled":true,\
            "timeSinceUpdate":0,"numStaleUpdates":0}
            """
        let header = """
            {"languageCode":"en-US","regionCode":"US","sdkVersion":"\(vehicle % 3 == 0 ? "4.9.1" : "5.0.0")",\
            "osVersion":"14","deviceModel":"Pixel 8","sdkType":"SDK_TYPE_LOG_DRIVER","mapsSdkVersion":"18.2.0",\
            "navSdkVersion":"5.3.1","platform":"PLATFORM_LOG_ANDROID","manufacturer":"Google","androidApiLevel":34,\
            "traceId":"\(String(index, radix: 16))"}
            """
        let error =
            index % 997 == 0
            ? #","errorResponse":{"code":"NOT_FOUND","httpStatusCode":404,"message":"vehicle not found"}"# : ""
        return """
            {"insertId":"\(String(index, radix: 16))","jsonPayload":{"@type":\
            "type.googleapis.com/maps.fleetengine.v1.UpdateVehicleLog","request":{"header":\(header),\
            "vehicleId":"vehicle-\(vehicle)","vehicle":{"lastLocation":\(location),"vehicleState":"ONLINE"},\
            "updateMask":"last_location"},"response":{"name":"providers/demo/vehicles/vehicle-\(vehicle)",\
            "vehicleState":"ONLINE","lastLocation":\(location),"maximumCapacity":4,\
            "supportedTripTypes":["EXCLUSIVE"]}\(error)},"resource":{"type":"fleetengine.googleapis.com/Fleet",\
            "labels":{"location":"global","resource_container":"projects/demo"}},"timestamp":"\(time)",\
            "logName":"projects/demo/logs/fleetengine.googleapis.com%2Fupdate_vehicle","receiveTimestamp":"\(time)",\
            "labels":{"vehicle_id":"vehicle-\(vehicle)"}\(index % 997 == 0 ? #","severity":"ERROR""# : "")}
            """
    }

    static func timestamp(_ micros: Int) -> String {
        let seconds = micros / 1_000_000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, micros % 1_000_000)
    }
}
