import AsyncHTTPClient
import Crypto
import Foundation
import Spawning

#if canImport(Glibc)
    import Glibc
#endif

/// `tokendash setup objc`: builds the three releases into `ObjCRuntime.prefix`, a stage at a time,
/// each said with the time it took.
///
/// The prefix is baked into what GNUstep builds (its configuration file's path, the libraries'
/// rpaths), so the build is made for the final path, which is a symbolic link to a folder of the
/// setup's own while it runs. Only when everything built, the manifest is written and the folder
/// is renamed over the link: a setup cut off leaves a link or a `.building-` folder, which
/// `ObjCRuntime.installed` does not take and the next setup clears.
public struct RuntimeSetup: Sendable {
    public var root: URL
    /// `--sources DIR`: the tarballs from there, else downloaded from the projects' release pages.
    public var sources: URL?
    public var toolchain: Toolchain
    /// Says each stage as it ends.
    public var report: @Sendable (String) -> Void
    /// The releases built; `ObjCRuntime.releases` but where a test serves them from loopback.
    public var releases = ObjCRuntime.releases

    public init(root: URL, sources: URL?, toolchain: Toolchain, report: @escaping @Sendable (String) -> Void) {
        self.root = root
        self.sources = sources
        self.toolchain = toolchain
        self.report = report
    }

    /// The Swift toolchain's clang and the folder of its libdispatch, which GNUstep's
    /// `NSOperationQueue` and `NSURLSession` run on.
    public struct Toolchain: Sendable, Equatable {
        public var clang: String
        public var libraries: String

        /// `--clang PATH`, else the clang beside `swiftc` on PATH (Debian's clang 14 reports
        /// hundreds of false races inside libobjc2 under ThreadSanitizer; the toolchain's does not).
        public static func find(given: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
            throws(SetupProblem) -> Toolchain
        {
            let clang: String
            if let given {
                guard FileManager.default.isExecutableFile(atPath: given) else {
                    throw .noClang("--clang \(given) is not an executable file")
                }
                clang = given
            } else {
                guard let swiftc = ChildProcess.onPath("swiftc", environment: environment) else {
                    throw .noClang("no swiftc on PATH, so no Swift toolchain whose clang to use (or pass --clang PATH)")
                }
                let real = URL(fileURLWithPath: swiftc).resolvingSymlinksInPath()
                let beside = real.deletingLastPathComponent().appendingPathComponent("clang").path
                guard FileManager.default.isExecutableFile(atPath: beside) else {
                    throw .noClang("the Swift toolchain at \(real.deletingLastPathComponent().path) has no clang")
                }
                clang = beside
            }
            let usr = URL(fileURLWithPath: clang).resolvingSymlinksInPath().deletingLastPathComponent()
                .deletingLastPathComponent()
            let libraries = usr.appendingPathComponent("lib/swift/linux").path
            guard FileManager.default.fileExists(atPath: libraries + "/libdispatch.so") else {
                throw .noClang(
                    "\(clang) is not a Swift toolchain's clang: \(libraries) has no libdispatch.so, which GNUstep's Foundation needs"
                )
            }
            return Toolchain(clang: clang, libraries: libraries)
        }
    }

    /// What the build needs from Debian, each with the packages that would do.
    public static let packages: [[String]] = [
        ["cmake"], ["ninja-build"], ["make"], ["robin-map-dev"], ["libcurl4-gnutls-dev", "libcurl4-openssl-dev"],
        ["libffi-dev"], ["libxml2-dev"], ["libgnutls28-dev"], ["libicu-dev"],
    ]

    /// The packages missing from `installed` (what dpkg says is installed), as one `apt-get
    /// install` line, or nil when nothing is missing.
    public static func installLine(installed: Set<String>) -> String? {
        let missing = packages.filter { choices in !choices.contains(where: installed.contains) }.map(\.[0])
        return missing.isEmpty ? nil : "apt-get install " + missing.joined(separator: " ")
    }

    public enum Outcome: Sendable {
        case alreadyThere(ObjCRuntime.Installed)
        case built(ObjCRuntime.Installed)
    }

    public func run() async throws(SetupProblem) -> Outcome {
        if let installed = ObjCRuntime.installed(root: root) { return .alreadyThere(installed) }
        try await stage("checking the build's packages") { () throws(SetupProblem) in try await checkPackages() }
        do {
            try FileManager.default.createDirectory(
                at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("cannot make \(root.path): \((error as NSError).localizedDescription)")
        }
        let lock = try Lock(root.appendingPathComponent(".setup.lock").path)
        defer { lock.release() }
        // Another setup may have finished while this one waited for nothing: the lock is not waited on.
        if let installed = ObjCRuntime.installed(root: root) { return .alreadyThere(installed) }
        clearLeftovers()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-objc-setup-\(getpid())")
        let staging = root.appendingPathComponent("\(ObjCRuntime.versions).building-\(getpid())")
        let prefix = ObjCRuntime.prefix(root: root)
        do {
            try? FileManager.default.removeItem(at: work)
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: prefix, withDestinationURL: staging)
        } catch {
            throw .io("cannot prepare the build: \((error as NSError).localizedDescription)")
        }
        var finished = false
        defer {
            if !finished {
                try? FileManager.default.removeItem(at: prefix)
                try? FileManager.default.removeItem(at: staging)
            }
        }
        let tarballs = try await stage("the three source releases, their SHA-256 checked") {
            () throws(SetupProblem) in try await obtainSources(in: work)
        }
        let build = Build(work: work, prefix: prefix.path, toolchain: toolchain)
        for (release, tarball) in zip(releases, tarballs) {
            try await stage("\(release.name) \(release.version) built") { () throws(SetupProblem) in
                try await build.make(release, from: tarball)
            }
        }
        let installed = try await stage("checked: a probe using NSURLSession, blocks and ARC ran") {
            () throws(SetupProblem) in try await build.probe()
        }
        do {
            let data = try JSONEncoder().encode(installed)
            try data.write(to: staging.appendingPathComponent(ObjCRuntime.manifestName))
            try FileManager.default.removeItem(at: prefix)
            try FileManager.default.moveItem(at: staging, to: prefix)
        } catch {
            throw .io("cannot move the runtime into \(prefix.path): \((error as NSError).localizedDescription)")
        }
        finished = true
        try? FileManager.default.removeItem(at: work)
        return .built(installed)
    }

    /// Runs one stage and says it ended, with its time.
    private func stage<T>(_ name: String, _ body: () async throws(SetupProblem) -> T) async throws(SetupProblem) -> T {
        let start = ContinuousClock.now
        let value = try await body()
        let took = (ContinuousClock.now - start).components
        let seconds = Double(took.seconds) + Double(took.attoseconds) / 1e18
        report("setup objc: \(name) (\(String(format: "%.1f", seconds)) s)")
        return value
    }

    private func checkPackages() async throws(SetupProblem) {
        guard let dpkg = ChildProcess.onPath("dpkg-query") else {
            for tool in ["cmake", "ninja", "make"] where ChildProcess.onPath(tool) == nil {
                throw .missingPackages("\(tool) is not on PATH; the build needs cmake, ninja and make")
            }
            return
        }
        let names = Self.packages.flatMap { $0 }
        let output = await Build.capture([dpkg, "-W", "-f", "${Package} ${db:Status-Status}\n"] + names)
        let installed = Set(
            output.split(separator: "\n").compactMap { line -> String? in
                let parts = line.split(separator: " ")
                return parts.count == 2 && parts[1] == "installed" ? String(parts[0]) : nil
            })
        if let line = Self.installLine(installed: installed) {
            throw .missingPackages("the build needs Debian packages that are not installed; as root: \(line)")
        }
    }

    /// Removes what a setup cut off left: the link, and the folders it built in. Only called
    /// under the lock, so none is another setup's.
    private func clearLeftovers() {
        let prefix = ObjCRuntime.prefix(root: root)
        var status = stat()
        if lstat(prefix.path, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
            try? FileManager.default.removeItem(at: prefix)
        } else if lstat(prefix.path, &status) == 0 {
            // A folder without its manifest: a setup from before the link, or one damaged since.
            try? FileManager.default.removeItem(at: prefix)
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for name in names where name.hasPrefix(ObjCRuntime.versions + ".building-") {
            try? FileManager.default.removeItem(at: root.appendingPathComponent(name))
        }
    }

    /// Each release's tarball, from `--sources` or downloaded, checked against its pinned sum.
    func obtainSources(in work: URL) async throws(SetupProblem) -> [URL] {
        var tarballs: [URL] = []
        for release in releases {
            let file: URL
            if let sources {
                file = sources.appendingPathComponent(release.file)
                guard FileManager.default.fileExists(atPath: file.path) else {
                    throw .source(
                        "\(file.path): missing (expected \(release.name) \(release.version), SHA-256 \(release.sha256))"
                    )
                }
            } else {
                file = work.appendingPathComponent(release.file)
                try await Self.download(release, to: file)
            }
            let sum = try Self.sha256(of: file)
            guard sum == release.sha256 else {
                throw .source(
                    "\(file.path): SHA-256 is \(sum), expected \(release.sha256) (\(release.name) \(release.version))")
            }
            tarballs.append(file)
        }
        return tarballs
    }

    /// The largest tarball taken: the three are 0.3-4 MB.
    static let maximumDownload = 64 << 20

    static func download(_ release: ObjCRuntime.Release, to file: URL) async throws(SetupProblem) {
        do {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: release.url), timeout: .seconds(300))
            guard response.status == .ok else {
                throw SetupProblem.source(
                    "\(release.url): the server answered \(response.status.code) \(response.status.reasonPhrase)")
            }
            let body = try await response.body.collect(upTo: maximumDownload)
            try Data(body.readableBytesView).write(to: file)
        } catch let problem as SetupProblem {
            throw problem
        } catch {
            throw .source(
                "\(release.url): cannot download it (\(error)); on a machine without the internet, pass --sources DIR holding \(release.file)"
            )
        }
    }

    static func sha256(of file: URL) throws(SetupProblem) -> String {
        guard let handle = try? FileHandle(forReadingFrom: file) else {
            throw .source("\(file.path): cannot be read")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// An exclusive lock on a file, so two setups never build into one folder.
    struct Lock {
        let descriptor: Int32
        init(_ path: String) throws(SetupProblem) {
            descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                throw .io("another `tokendash setup objc` is building the runtime now (it holds \(path))")
            }
        }
        func release() { close(descriptor) }
    }
}

/// Why setup stopped, in one line.
public enum SetupProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case noClang(String)
    case missingPackages(String)
    /// A tarball missing, unreadable, not downloaded or not matching its sum.
    case source(String)
    /// A stage failed: its name, its log's last lines and where the whole log is.
    case stage(String)
    case io(String)

    public var description: String {
        switch self {
        case .noClang(let why): "setup objc: no clang to build with: \(why)"
        case .missingPackages(let why): "setup objc: \(why)"
        case .source(let why): "setup objc: \(why)"
        case .stage(let why): "setup objc: \(why)"
        case .io(let why): "setup objc: \(why)"
        }
    }
}
