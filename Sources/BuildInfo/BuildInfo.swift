/// What this build is, for `--version` and for what names the program (recordings, snapshots).
/// A module of its own, below every command, so that `scripts/release.sh` stamping the commit
/// recompiles this one small file and nothing a command's code is made of.
public enum BuildInfo {
    /// The release number; `scripts/release.sh` names the tarball and the .deb after it.
    public static let number = "0.3.0"

    /// What `--version` prints, and what recordings and snapshots name: the release number and
    /// the commit built from (`BuildStamp`), so a bug report says exactly which build it was.
    public static let version = "tokendash \(number) (\(BuildStamp.commit.map { "commit \($0)" } ?? "dev build"))"
}
