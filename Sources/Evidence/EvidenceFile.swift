import Foundation

/// An output file written whole or not at all: into a temporary file beside it, then renamed
/// over its name, so a reader never finds half a cast or half a page under the name asked for.
final class EvidenceFile {
    let path: String
    private let temporary: String
    private var descriptor: Int32
    /// Renamed into place (or removed): nothing of it is left to clean up.
    private var done = false

    /// Opens the temporary file now: a path that cannot be written is one line before any work.
    init(path: String) throws(EvidenceError) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        temporary = folder + "/." + url.lastPathComponent + ".\(getpid()).partial"
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw .cannotWrite(path, "is a folder")
        }
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cannotWrite(path, String(cString: strerror(errno))) }
    }

    /// Appends `text`; a failure leaves the file unfinished, and `finish` removes it.
    func write(_ text: String) throws(EvidenceError) {
        guard descriptor >= 0 else { throw .cannotWrite(path, "already closed") }
        var text = text
        let failure: String? = text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return nil }
            var written = 0
            while written < bytes.count {
                let n = Foundation.write(descriptor, base + written, bytes.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                written += n
            }
            return nil
        }
        if let failure {
            abandon()
            throw .cannotWrite(path, failure)
        }
    }

    /// Closes the temporary file and renames it to `path`.
    func finish() throws(EvidenceError) {
        guard descriptor >= 0 else { throw .cannotWrite(path, "already closed") }
        let closed = close(descriptor) == 0
        descriptor = -1
        guard closed, rename(temporary, path) == 0 else {
            let why = String(cString: strerror(errno))
            abandon()
            throw .cannotWrite(path, why)
        }
        done = true
    }

    /// Closes and removes the temporary file; nothing appears under `path`.
    func abandon() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        if !done { unlink(temporary) }
        done = true
    }

    /// `text` written to `path` whole, or an error and nothing there.
    static func write(_ text: String, to path: String) throws(EvidenceError) {
        let file = try EvidenceFile(path: path)
        try file.write(text)
        try file.finish()
    }

    deinit { abandon() }
}

/// Why an evidence file was not written: the command prints this one line and exits 2.
enum EvidenceError: Error, Equatable, CustomStringConvertible {
    case cannotWrite(String, String)

    var description: String {
        switch self {
        case .cannotWrite(let path, let why): "cannot write \(path): \(why)"
        }
    }
}
