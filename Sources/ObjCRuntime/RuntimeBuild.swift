import Foundation
import Spawning

/// The build steps of each release, TOOLCHAIN.md's recipe: each runs in `work` with its output
/// in a log of its own, which a failure quotes.
struct Build: Sendable {
    let work: URL
    /// The final prefix (a link to the setup's own folder while it builds).
    let prefix: String
    let toolchain: RuntimeSetup.Toolchain

    /// The toolchain's clang++ beside its clang.
    var clangxx: String { toolchain.clang + "++" }

    /// gnustep-make's environment script, which gnustep-base's configure and make need.
    var gnustepShell: String {
        "export GNUSTEP_CONFIG_FILE='\(prefix)/etc/GNUstep/GNUstep.conf'; . '\(prefix)/share/GNUstep/Makefiles/GNUstep.sh'"
    }

    func make(_ release: ObjCRuntime.Release, from tarball: URL) async throws(SetupProblem) {
        let jobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let script: String
        switch release.name {
        case "libobjc2":
            script = """
                mkdir -p build && cd build && cmake -G Ninja .. -DCMAKE_C_COMPILER='\(toolchain.clang)' \
                -DCMAKE_CXX_COMPILER='\(clangxx)' -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX='\(prefix)' \
                -DTESTS=OFF -DGNUSTEP_INSTALL_TYPE=NONE && ninja install
                """
        case "gnustep-make":
            script = """
                CC='\(toolchain.clang)' CXX='\(clangxx)' CPPFLAGS='-I\(prefix)/include' \
                LDFLAGS='-L\(prefix)/lib -Wl,-rpath,\(prefix)/lib' ./configure --prefix='\(prefix)' --with-layout=fhs \
                --with-library-combo=ng-gnu-gnu --with-runtime-abi=gnustep-2.0 --enable-objc-arc \
                --with-config-file='\(prefix)/etc/GNUstep/GNUstep.conf' && make install
                """
        default:
            let dispatch = URL(fileURLWithPath: toolchain.libraries).deletingLastPathComponent().path
            script = """
                \(gnustepShell) && ./configure --disable-zeroconf --disable-xslt --with-dispatch-include='\(dispatch)' \
                --with-dispatch-library='\(toolchain.libraries)' \
                LDFLAGS='-L\(prefix)/lib -Wl,-rpath,\(prefix)/lib -Wl,-rpath,\(toolchain.libraries)' \
                && make -j\(jobs) messages=no && make install
                """
        }
        try await run(
            "tar xzf '\(tarball.path)' -C '\(work.path)' && cd '\(work.path)/\(release.folder)' && \(script)",
            log: release.name)
    }

    /// The flags a provider is built with, from gnustep-config, and a probe that uses what the
    /// seeds' samples use (NSURLSession's data task, a block, ARC, the main queue) built and run
    /// with them: a runtime that cannot run the samples is not installed.
    func probe() async throws(SetupProblem) -> ObjCRuntime.Installed {
        let config = "\(prefix)/bin/gnustep-config"
        let objc = await Build.capture(["/bin/sh", "-c", "\(gnustepShell) && '\(config)' --objc-flags"])
        let libs = await Build.capture(["/bin/sh", "-c", "\(gnustepShell) && '\(config)' --base-libs"])
        let installed = ObjCRuntime.Installed(
            prefix: prefix, clang: toolchain.clang, toolchainLibraries: toolchain.libraries,
            objcFlags: Build.providerFlags(objc, prefix: prefix),
            linkFlags: Build.linkFlags(libs, prefix: prefix, toolchainLibraries: toolchain.libraries))
        let probe = work.appendingPathComponent("probe.m")
        let text = """
            #import <Foundation/Foundation.h>
            int main(void) {
              @autoreleasepool {
                NSURLSession *session = [NSURLSession sessionWithConfiguration:[NSURLSessionConfiguration defaultSessionConfiguration]
                                                                      delegate:nil delegateQueue:[NSOperationQueue mainQueue]];
                __block int ran = 0;
                void (^mark)(void) = ^{ ran = 1; };
                mark();
                printf("%s\\n", session && ran ? "probe ok" : "probe failed");
              }
              return 0;
            }

            """
        do { try Data(text.utf8).write(to: probe) } catch {
            throw .io("cannot write \(probe.path): \((error as NSError).localizedDescription)")
        }
        let binary = work.appendingPathComponent("probe").path
        let arguments = ([toolchain.clang] + installed.objcFlags + [probe.path, "-o", binary] + installed.linkFlags)
            .map { "'\($0)'" }.joined(separator: " ")
        try await run("\(arguments) && '\(binary)' | grep -q 'probe ok'", log: "probe")
        return installed
    }

    /// gnustep-config's compiler flags for a provider: without dependency files, optimisation (a
    /// race's lines must stay as written), its warnings, and headers outside the prefix (the
    /// user's own GNUstep folder, the current one); with ARC, as Xcode's projects build.
    static func providerFlags(_ output: String, prefix: String) -> [String] {
        let dropped: Set<String> = ["-MMD", "-MP", "-g", "-O2", "-Wall", "-DGSWARN", "-DGSDIAGNOSE", "-I."]
        var flags: [String] = []
        for flag in output.split(whereSeparator: \.isWhitespace).map(String.init) where !dropped.contains(flag) {
            if flag.hasPrefix("-I"), !flag.hasPrefix("-I" + prefix) { continue }
            if !flags.contains(flag) { flags.append(flag) }
        }
        return flags + ["-fobjc-arc"]
    }

    /// gnustep-config's libraries, with the toolchain's libdispatch (ThreadSanitizer's link needs
    /// it named) and rpaths to both folders, so the host needs no LD_LIBRARY_PATH.
    static func linkFlags(_ output: String, prefix: String, toolchainLibraries: String) -> [String] {
        var flags: [String] = []
        for flag in output.split(whereSeparator: \.isWhitespace).map(String.init) {
            if flag.hasPrefix("-L"), !flag.hasPrefix("-L" + prefix) { continue }
            if flag.hasPrefix("-Wl,-rpath,") { continue }
            if !flags.contains(flag) { flags.append(flag) }
        }
        return flags + [
            "-L\(toolchainLibraries)", "-ldispatch", "-Wl,-rpath,\(prefix)/lib", "-Wl,-rpath,\(toolchainLibraries)",
        ]
    }

    /// Runs `script` with its output in `logs/NAME.log`; a failure quotes the log's last lines.
    func run(_ script: String, log name: String) async throws(SetupProblem) {
        let logs = work.appendingPathComponent("logs")
        try? FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let log = logs.appendingPathComponent("\(name).log").path
        let status: Int32
        do {
            let pid = try ChildProcess.spawn(
                ["/bin/sh", "-c", script], stdin: .devNull, stdout: .file(log), stderr: .stdout)
            status = await ChildProcess.exit(of: pid).0
        } catch {
            throw .io("cannot start /bin/sh: \(error)")
        }
        guard status != 0 else { return }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let last = text.split(separator: "\n").suffix(3).joined(separator: " | ")
        throw .stage("\(name) failed (exit \(status)): \(last) (the whole log: \(log))")
    }

    /// A short command's stdout, for flags and package queries.
    static func capture(_ arguments: [String]) async -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokendash-capture-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        guard let pid = try? ChildProcess.spawn(arguments, stdin: .devNull, stdout: .file(file.path), stderr: .devNull)
        else { return "" }
        _ = await ChildProcess.exit(of: pid)
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }
}
