import ArgumentParser
import Foundation
import HeadlessCommands
import ObjCRuntime

/// Installs what a language's providers need beyond tokendash itself.
struct SetupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Install what a provider in another language needs (Objective-C).",
        subcommands: [SetupObjCCommand.self])
}

/// `tokendash setup objc`: the Objective-C runtime a `.m` provider is built and run with.
struct SetupObjCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objc",
        abstract: "Build the Objective-C runtime (libobjc2, GNUstep's Foundation) a .m provider needs.",
        discussion: """
            Builds libobjc2 2.3, gnustep-make 2.9.3 and gnustep-base 1.31.1 with the Swift toolchain's clang
            into $XDG_CACHE_HOME/tokendash/objc (about two minutes on two cores, 20 MB). It checks the Debian
            packages the build needs first and prints the one apt-get line for those missing. The tarballs are
            downloaded from the projects' release pages, or taken from --sources DIR, and checked against
            pinned SHA-256 sums. Run again, it says the runtime is already there.
            """)

    @Option(help: "A folder holding the three release tarballs, instead of downloading them.")
    var sources: String?

    @Option(help: "The clang to build with; default: the one beside swiftc on PATH (the Swift toolchain's).")
    var clang: String?

    func run() async throws {
        let root = ObjCRuntime.root()
        do throws(SetupProblem) {
            let toolchain = try RuntimeSetup.Toolchain.find(given: clang)
            let setup = RuntimeSetup(
                root: root, sources: sources.map { URL(fileURLWithPath: $0) }, toolchain: toolchain,
                report: { ServeCommand.stderr($0) })
            switch try await setup.run() {
            case .alreadyThere(let installed):
                print("the Objective-C runtime is already there: \(installed.prefix)")
            case .built(let installed):
                print("the Objective-C runtime is ready: \(installed.prefix)")
            }
        } catch {
            ServeCommand.stderr(error.description)
            switch error {
            case .noClang, .missingPackages, .source: throw ExitCode(2)
            case .stage, .io: throw ExitCode(1)
            }
        }
    }
}
