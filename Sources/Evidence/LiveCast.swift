import Dashboard
import Foundation
import Recording
import Synchronization
import UICore

/// `--cast OUT.cast` on the live dashboard: each frame the loop draws, as ANSI for what changed,
/// and the markers its actions bring, written to a temporary file beside `OUT.cast` and renamed
/// to it when the dashboard ends. A frame drawn with a token revealed is written from the same
/// state with the token redacted (a cast is a file that travels), and a marker says so.
public final class LiveCast: FrameRecorder, Sendable {
    private struct Session {
        var file: EvidenceFile?
        var encoder: ANSIFrameEncoder
        var events = CastEvents()
        var markers = CastMarkers()
        var pending: [String] = []
        var size: (width: Int, height: Int)?
        var failure: String?
    }
    // Guards the cast: only the loop's thread writes to it, but the command closes it from a task.
    private let session: Mutex<Session>
    private let start: Date
    private let idleTimeLimit: Double?
    private let environment: [String: String]
    private let title: String
    let path: String
    /// Written out in batches this large, so the loop's thread goes to the disk rarely.
    static let batchBytes = 1 << 16

    /// Opens the temporary file now: a path that cannot be written is one line before the dashboard starts.
    public init(
        path: String, start: Date, theme: Theme, idleTimeLimit: Double?, title: String,
        environment: [String: String]
    ) throws {
        let file = try EvidenceFile(path: path)
        self.path = path
        self.start = start
        self.idleTimeLimit = idleTimeLimit
        self.title = title
        self.environment = environment
        session = Mutex(Session(file: file, encoder: ANSIFrameEncoder(theme: theme)))
    }

    public func record(_ action: Action, at time: Date) {
        session.withLock { s in
            if case .resized(let width, let height) = action, let size = s.size,
                size.width != width || size.height != height
            {
                s.events.resize(width: width, height: height, at: seconds(time))
                s.size = (width, height)
                s.encoder.invalidate()
            }
            s.pending += s.markers.labels(for: action)
        }
    }

    public func frame(_ canvas: Canvas, of state: DashboardState, at time: Date) {
        session.withLock { s in
            guard s.file != nil, s.failure == nil else { return }
            var header: String?
            if s.size == nil {
                s.size = (canvas.width, canvas.height)
                header =
                    CastHeader(
                        width: canvas.width, height: canvas.height, start: start, idleTimeLimit: idleTimeLimit,
                        title: title, term: environment["TERM"] ?? "xterm-256color",
                        shell: environment["SHELL"] ?? "/bin/sh", theme: s.encoder.theme
                    ).line
            }
            var frame = canvas
            s.pending += s.markers.reveal(state.reveal)
            if state.reveal {
                var redacted = state
                redacted.reveal = false
                frame = Renderer.render(redacted, width: canvas.width, height: canvas.height)
            }
            s.encoder.setTheme(state.colorless ? state.theme.monochrome : state.theme)
            let at = seconds(time)
            s.events.output(s.encoder.encode(frame), at: at)
            for label in s.pending { s.events.marker(label, at: at) }
            s.pending.removeAll()
            if let header { write(header, &s) }
            if s.events.text.utf8.count >= Self.batchBytes { write(s.events.take(), &s) }
        }
    }

    /// Writes out the rest and puts the cast under its name; returns why it could not, if so.
    @discardableResult
    public func close() -> String? {
        session.withLock { s in
            guard let file = s.file else { return s.failure }
            write(s.events.take(), &s)
            s.file = nil
            if s.failure != nil || s.size == nil {
                file.abandon()
                return s.failure ?? "cast \(path): no frame was drawn; nothing written"
            }
            do { try file.finish() } catch { s.failure = "cast \(error)" }
            return s.failure
        }
    }

    private func write(_ text: String, _ s: inout Session) {
        guard s.failure == nil, let file = s.file else { return }
        do { try file.write(text) } catch { s.failure = "cast \(error)" }
    }

    private func seconds(_ time: Date) -> Double { max(0, time.timeIntervalSince(start)) }
}
