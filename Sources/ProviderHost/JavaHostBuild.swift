import Foundation
import ProviderVocabulary

/// An Android `AuthTokenFactory` and the JVM host (HostPrograms/java/TokendashHost.java) built
/// into a folder of classes and a `provider-host` script that starts the JVM on them. A Java
/// class is compiled with the host by javac; a Kotlin one by kotlinc, after the host's classes.
/// Both against the SDKs' stand-ins and Gson (which Google's skeletons parse the answer with).
/// All from Debian (`openjdk-17-jdk-headless`, `libgoogle-gson-java`, `kotlin`); when one is
/// missing, one sentence names the package to install.
struct JavaHostBuild {
    let builder: HostBuilder
    let source: ProviderSourceFile
    var environment: [String: String] = ProcessInfo.processInfo.environment

    /// Where Debian's libgoogle-gson-java puts its jar.
    static let gsonJar = "/usr/share/java/gson.jar"

    func build() async throws(BuildProblem) -> HostBuilder.Built {
        let (javac, java) = try JavaToolchain.find(environment: environment)
        guard FileManager.default.isReadableFile(atPath: Self.gsonJar) else {
            throw .noRuntime(
                "a \(source.language.name) factory is compiled against Gson, as Google's Android skeletons parse with it, and \(Self.gsonJar) is not here: install it with `apt-get install libgoogle-gson-java`"
            )
        }
        let kotlin = source.language == .kotlin ? try JavaToolchain.findKotlin(environment: environment) : nil
        let names = HostBuilder.copyNames(source, hostFile: "TokendashHost.java")
        let role = source.role == .driver ? "driver" : "consumer"
        let classPath = [Self.gsonJar] + (kotlin.map { [$0.standardLibrary] } ?? [])
        let key = HostBuilder.key(
            [HostBuilder.formatVersion, "jvm", javac, java, kotlin?.compiler ?? "", HostProgramSources.java]
                + classPath + StandInSDK.javaStandIns.keys.sorted().flatMap { [$0, StandInSDK.javaStandIns[$0] ?? ""] }
                + JavaToolchain.jvmOptions + [source.qualifiedClassName, role]
                + zip(names, source.parts).flatMap { [$0, $1.buildText] })
        return try await builder.inPlace(key: key, source: source, names: names) { work throws(BuildProblem) in
            try HostBuilder.write(
                StandInSDK.javaStandIns.merging(["TokendashHost.java": HostProgramSources.java]) { $1 }, to: work)
            let host = ["TokendashHost.java"] + StandInSDK.javaStandIns.keys.sorted()
            let javacFlags = [javac, "-g", "-encoding", "UTF-8", "-nowarn", "-Xmaxerrs", "20", "-cp", Self.gsonJar]
            if let kotlin {
                // The host and the stand-ins first, then the class against them: kotlinc reads classes, not Java sources.
                try await builder.run(
                    javacFlags + ["-d", "classes"] + host, in: work, source: source, names: names,
                    hostFile: "TokendashHost.java", tool: "javac")
                try await builder.run(
                    [
                        kotlin.compiler, "-nowarn", "-jvm-target", "1.8", "-cp", "classes:\(Self.gsonJar)", "-d",
                        "classes",
                    ]
                        + names, in: work, source: source, names: names, hostFile: "TokendashHost.java", tool: "kotlinc"
                )
            } else {
                try await builder.run(
                    javacFlags + ["-d", "classes"] + names + host, in: work, source: source, names: names,
                    hostFile: "TokendashHost.java", tool: "javac")
            }
            try Self.writeLauncher(
                java: java, classPath: classPath, className: source.qualifiedClassName, role: role, fileNames: names,
                to: work)
        }
    }

    /// `provider-host`: a script that execs the JVM on the build's classes (its folder is found
    /// from the script's own path, as the build is moved into the cache once made).
    static func writeLauncher(
        java: String, classPath: [String], className: String, role: String, fileNames: [String], to directory: URL
    ) throws(BuildProblem) {
        let arguments =
            [java] + JavaToolchain.jvmOptions
            + ["-cp", (["$here/classes"] + classPath).joined(separator: ":"), "TokendashHost", className, role]
            + fileNames
        let script = """
            #!/bin/sh
            # tokendash's JVM host for \(className), written by its build: the JVM on the classes beside it.
            here=$(dirname "$0")
            exec \(arguments.map(shellWord).joined(separator: " "))

            """
        let url = directory.appendingPathComponent("provider-host")
        do {
            try Data(script.utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        } catch {
            throw .io("cannot write \(url.path): \((error as NSError).localizedDescription)")
        }
    }

    /// A word for /bin/sh: `$here` stays a variable, everything else is quoted as it is.
    static func shellWord(_ word: String) -> String {
        if word.hasPrefix("$here/") {
            return "\"$here\"'" + word.dropFirst(5).replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

}

/// The JDK a factory is built and run with, and how its JVM is started.
public enum JavaToolchain {
    /// The JVM's settings: an Android app's heap is a few hundred MiB, so an allocation bomb in
    /// the class is an OutOfMemoryError thrown from getToken, as on a phone, well under the host's
    /// memory limit; the client compiler and the serial collector start the JVM soonest, which
    /// is what a restarted host waits for.
    public static let jvmOptions = ["-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"]

    /// kotlinc from PATH and the standard library beside it (Debian's `kotlin` package), or the
    /// sentence naming that package.
    public static func findKotlin(environment: [String: String]) throws(BuildProblem) -> (
        compiler: String, standardLibrary: String
    ) {
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/kotlinc"
            guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            let compiler = URL(fileURLWithPath: candidate).resolvingSymlinksInPath()
            let library = compiler.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("lib/kotlin-stdlib.jar").path
            guard FileManager.default.isReadableFile(atPath: library) else { continue }
            return (compiler.path, library)
        }
        throw .noRuntime(
            "a Kotlin factory is built with kotlinc, and there is none here: kotlinc was not found on PATH (install it with `apt-get install kotlin`)"
        )
    }

    /// javac and java from `JAVA_HOME`, else from PATH, or the sentence naming Debian's JDK.
    public static func find(environment: [String: String]) throws(BuildProblem) -> (javac: String, java: String) {
        var directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        if let home = environment["JAVA_HOME"], !home.isEmpty { directories.insert(home + "/bin", at: 0) }
        for directory in directories {
            let javac = directory + "/javac"
            let java = directory + "/java"
            if FileManager.default.isExecutableFile(atPath: javac), FileManager.default.isExecutableFile(atPath: java) {
                // The JDK's own folder, not the alternatives link: a JDK removed makes a new build.
                let resolve = { (path: String) in URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
                return (resolve(javac), resolve(java))
            }
        }
        throw .noRuntime(
            "a Java factory is built with javac and run on a JVM, and there is none here: javac was not found on PATH (install a JDK with `apt-get install openjdk-17-jdk-headless`)"
        )
    }
}

/// javac's errors as the other compilers' are read: one line each, `File.java:12: error: …`,
/// with the detail javac puts on the lines under it (`symbol: variable context`) joined on.
enum JavacOutput {
    static func joined(_ output: String) -> String {
        var lines: [String] = []
        // The error's own line; the source line and the caret come between it and its symbol.
        var lastError: Int?
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("symbol:"), let last = lastError {
                lines[last] +=
                    " (" + trimmed.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression) + ")"
                lastError = nil
            } else {
                if line.contains(": error: ") { lastError = lines.count }
                lines.append(String(line))
            }
        }
        return lines.joined(separator: "\n")
    }
}
