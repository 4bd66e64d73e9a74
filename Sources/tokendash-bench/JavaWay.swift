import Foundation
import ProviderHost
import Spawning

/// The JVM row of the source section: an Android factory that caches its token, compiled with
/// javac and run in the JVM host, a cached `getToken` beside a bare JVM echo of the same protocol
/// started with the same JVM settings (Issue 62's bound: at most 2x that echo), the first build
/// against one from the cache, and each JVM's start (spawned to its first line) said.
struct JavaWay {
    let built: HostBuilder.Built
    let source: ProviderSourceFile
    let firstBuild: Double
    let cachedBuild: Double
    /// The echo, started and ready, and how long its JVM took to say so.
    let echo: HostConnection
    let echoStart: Double
    var echoOutputs: AsyncStream<HostConnection.Output>.Iterator

    static func cachingClass(token: String) -> String {
        """
        import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
        import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;

        class CachesItsToken implements AuthTokenFactory {
          private String token;

          @Override
          public String getToken(AuthTokenContext context) {
            if (token == null) token = "\(token)";
            return token;
          }
        }

        """
    }

    /// The baseline: reads request lines on descriptor 3 and answers each with a completion line
    /// on 4, on the thread that read it, nothing else.
    static let echoProgram = #"""
        import java.io.*;
        import java.nio.charset.StandardCharsets;

        public final class Echo {
          public static void main(String[] args) throws IOException {
            BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream("/proc/self/fd/3"), StandardCharsets.UTF_8));
            OutputStream out = new FileOutputStream("/proc/self/fd/4");
            out.write("{\"t\":\"ready\"}\n".getBytes(StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
              int at = line.indexOf("\"call\":");
              if (at < 0) continue;
              int end = at + 7;
              while (end < line.length() && Character.isDigit(line.charAt(end))) end++;
              out.write(("{\"t\":\"completion\",\"call\":" + line.substring(at + 7, end) + ",\"token\":\"x\"}\n").getBytes(StandardCharsets.UTF_8));
            }
          }
        }
        """#

    static func prepare(in folder: URL, token: String) async throws -> JavaWay {
        let clock = ContinuousClock()
        let file = folder.appendingPathComponent("CachesItsToken.java")
        try Data(cachingClass(token: token).utf8).write(to: file)
        let source = try ProviderSourceFile.read(file.path, role: .driver, providerURL: "http://127.0.0.1:9/unused")
        let builder = HostBuilder(swiftc: "", sanitize: false, cacheRoot: folder.appendingPathComponent("java-cache"))
        var built: HostBuilder.Built?
        let first = try await clock.measure { built = try await builder.build(source) }
        let cached = try await clock.measure { _ = try await builder.build(source) }
        guard let built else { throw MintBenchmark.BenchmarkError("no Java build") }

        let (javac, java) = try JavaToolchain.find(environment: ProcessInfo.processInfo.environment)
        let echoFolder = folder.appendingPathComponent("java-echo")
        try FileManager.default.createDirectory(at: echoFolder, withIntermediateDirectories: true)
        try Data(echoProgram.utf8).write(to: echoFolder.appendingPathComponent("Echo.java"))
        let log = echoFolder.appendingPathComponent("javac.log").path
        let pid = try ChildProcess.spawn(
            [javac, "-d", echoFolder.path, echoFolder.appendingPathComponent("Echo.java").path], stdin: .devNull,
            stdout: .file(log), stderr: .stdout)
        guard await ChildProcess.exit(of: pid).0 == 0 else {
            throw MintBenchmark.BenchmarkError(
                "the JVM echo did not build: " + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
        }
        let launcher = echoFolder.appendingPathComponent("echo")
        let script =
            "#!/bin/sh\nexec '\(java)' \(JavaToolchain.jvmOptions.joined(separator: " ")) -cp '\(echoFolder.path)' Echo\n"
        try Data(script.utf8).write(to: launcher)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: launcher.path)
        let started = ContinuousClock.now
        let echo = try HostConnection(executable: launcher.path, fileName: "Echo.java", environment: [:])
        var outputs = echo.outputs.makeAsyncIterator()
        guard case .message(.ready)? = await outputs.next() else {
            throw MintBenchmark.BenchmarkError("the JVM echo did not start")
        }
        return JavaWay(
            built: built, source: source, firstBuild: SourceProviderBenchmark.seconds(first),
            cachedBuild: SourceProviderBenchmark.seconds(cached), echo: echo,
            echoStart: SourceProviderBenchmark.seconds(ContinuousClock.now - started), echoOutputs: outputs)
    }

    /// One round of the echo's calls, numbered from `first`.
    mutating func echoCalls(_ count: Int, from first: Int) async throws {
        for call in first..<(first + count) {
            echo.send(HostMessage.request(call: call, id: "vehicle-0001"))
            guard case .message(.completion)? = await echoOutputs.next() else {
                throw MintBenchmark.BenchmarkError("the JVM echo stopped")
            }
        }
    }

    func report(
        way: SourceProviderBenchmark.Way, echoWay: SourceProviderBenchmark.Way, count: Double, hostStart: Double
    ) {
        let perCall = way.wall / count
        let perEcho = echoWay.wall / count
        let within = perCall <= 2 * perEcho ? "yes" : "NO (\(String(format: "%.1f", perCall / perEcho))x)"
        func cpu(_ way: SourceProviderBenchmark.Way) -> String {
            "\(SourceProviderBenchmark.micros(way.ownCPU / count)) in tokendash + \(SourceProviderBenchmark.micros(way.childCPU / count)) in the child"
        }
        MintBenchmark.printTable([
            ("", "through the JVM host  |  bare JVM echo (baseline)"),
            (
                "cached getToken, JVM host, mean of \(Int(count))",
                "\(SourceProviderBenchmark.micros(perCall))  |  \(SourceProviderBenchmark.micros(perEcho))"
            ),
            ("  within 2x the echo", within),
            ("CPU a call, JVM host", cpu(way)),
            ("CPU a call, JVM echo", cpu(echoWay)),
            (
                "JVM start to its first line (host: with the class made and its first call)",
                "\(MintBenchmark.ms(hostStart))  |  \(MintBenchmark.ms(echoStart))"
            ),
            ("", "first build  |  from the cache (baseline)"),
            (
                "javac of the factory, its host and the stand-ins",
                "\(MintBenchmark.ms(firstBuild))  |  \(MintBenchmark.ms(cachedBuild))"
            ),
        ])
        BenchReport.figure("source_java_fetch_us", value: perCall * 1e6, unit: "us", baseline: perEcho * 1e6)
        BenchReport.figure("source_java_start_ms", value: hostStart * 1000, unit: "ms", baseline: echoStart * 1000)
        BenchReport.figure("source_java_build_ms", value: firstBuild * 1000, unit: "ms", baseline: cachedBuild * 1000)
    }
}
