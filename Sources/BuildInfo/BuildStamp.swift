/// The commit this binary was built from, for `--version`. Every ordinary build (`swift build`,
/// `swift test`, CI's clean clone) leaves it nil and says "dev build"; `scripts/release.sh`
/// writes the commit here for its release build and puts this file back afterwards, so nothing
/// a developer runs needs git, a script, or a generated file to build.
enum BuildStamp {
    static let commit: String? = nil
}
