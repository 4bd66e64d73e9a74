import FleetAuth

/// The SDKs' modules as far as a token provider sees them, compiled beside the customer's class
/// so that `import GoogleRidesharingDriver` and URLSession code build unchanged on Linux. Their
/// surface is what Google's iOS references document, and nothing more:
/// - GMTDAuthorization, GMTDAuthorizationContext (`vehicleID`, `taskID`, immutable, "This class
///   has no public initializers"), GMTDAuthTokenFetchCompletionHandler:
///   https://developers.google.com/maps/documentation/mobility/driver-sdk/scheduled/reference/ios/Classes/GMTDAuthorizationContext
///   and .../driver-sdk/on-demand/reference/ios/Protocols/GMTDAuthorization;
/// - GMTCAuthorization, GMTCAuthorizationContext (`tripID`), GMTCAuthTokenFetchCompletionHandler:
///   https://developers.google.com/maps/documentation/mobility/journey-sharing/on-demand/reference/ios/Classes/GMTCAuthorizationContext
///   and .../Protocols/GMTCAuthorization ("Implementations of this protocol must be thread-safe",
///   "may be invoked from arbitrary queues").
/// The contexts' initialiser is SPI: the host makes them, the customer's code cannot, as on iOS.
/// The references' Swift `async throws -> String` refinement is Objective-C's import of the
/// completion method; without Objective-C on Linux the completion form is the one requirement.
public enum StandInSDK {
    /// The stand-in for the module the class of `role` imports.
    public static func module(_ role: ProviderKind.Role) -> (name: String, source: String) {
        switch role {
        case .driver: ("GoogleRidesharingDriver", header + driver)
        case .consumer: ("GoogleRidesharingConsumer", header + consumer)
        }
    }

    /// The protocol a class of `role` conforms to, as the SDK names it.
    public static func protocolName(_ role: ProviderKind.Role) -> String {
        role == .driver ? "GMTDAuthorization" : "GMTCAuthorization"
    }

    /// The module a class of `role` imports.
    public static func moduleName(_ role: ProviderKind.Role) -> String { module(role).name }

    private static let header = #"""
        // tokendash's stand-in for the SDK's module: only the token provider's surface.
        @_exported import Foundation
        #if canImport(FoundationNetworking)
        @_exported import FoundationNetworking
        #endif

        """#

    private static let driver = #"""
        public typealias GMTDAuthTokenFetchCompletionHandler = (String?, Error?) -> Void

        public protocol GMTDAuthorization: NSObjectProtocol {
          func fetchToken(with authorizationContext: GMTDAuthorizationContext?,
                          completion: @escaping GMTDAuthTokenFetchCompletionHandler)
        }

        public final class GMTDAuthorizationContext: NSObject, @unchecked Sendable {
          public let vehicleID: String
          public let taskID: String?
          @_spi(TokendashHost) public init(vehicleID: String, taskID: String?) {
            self.vehicleID = vehicleID
            self.taskID = taskID
          }
        }

        """#

    private static let consumer = #"""
        public typealias GMTCAuthTokenFetchCompletionHandler = (String?, Error?) -> Void

        public protocol GMTCAuthorization: NSObjectProtocol {
          func fetchToken(with authorizationContext: GMTCAuthorizationContext?,
                          completion: @escaping GMTCAuthTokenFetchCompletionHandler)
        }

        public final class GMTCAuthorizationContext: NSObject, @unchecked Sendable {
          public let tripID: String
          @_spi(TokendashHost) public init(tripID: String) {
            self.tripID = tripID
          }
        }

        """#

    /// The host's `main.swift`: one instance of the class for the whole run, each request line
    /// a `fetchToken` call on a thread of its own, each completion and each return a line back
    /// (the protocol is in the README, "Your own provider"). Glibc and pthreads, not Foundation:
    /// Foundation's locks and caches (JSONSerialization, Thread, NSLock) order the class's threads
    /// for ThreadSanitizer, which then misses the race the class has on a phone.
    public static func hostMain(role: ProviderKind.Role, className: String) -> String {
        let context =
            role == .driver
            ? "GMTDAuthorizationContext(vehicleID: request.id, taskID: request.task)"
            : "GMTCAuthorizationContext(tripID: request.id)"
        return #"""
            // tokendash's provider host: runs the customer's class as the SDK would.
            @_spi(TokendashHost) import \#(moduleName(role))
            #if canImport(Glibc)
            import Glibc
            #endif

            // The messages go out on the descriptor that was stdout; the class's own prints go to
            // stderr with the rest, so nothing it prints can pass for a message.
            let channel = dup(1)
            _ = dup2(2, 1)
            // Line by line, so what the class prints shows as it prints it, not when a buffer fills.
            setvbuf(stdout, nil, _IOLBF, 0)
            // Orders whole lines. The thread reading requests never takes it, so it adds no
            // ordering between the class's threads that ThreadSanitizer would trust.
            nonisolated(unsafe) var channelLock = pthread_mutex_t()
            pthread_mutex_init(&channelLock, nil)

            // What a JSON string must escape: the quote, the backslash and the control characters.
            let escapable = "\"\\" + String((1..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })

            func quoted(_ text: String) -> String {
              // A token needs no escaping: it is copied whole, found so by libc, as this host is
              // built without optimisation and a loop over a token's scalars costs more than the call.
              let plain = text.withCString { strlen($0) == text.utf8.count && strcspn($0, escapable) == text.utf8.count }
              if plain { return "\"" + text + "\"" }
              var out = "\""
              for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                  if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                  } else {
                    out.unicodeScalars.append(scalar)
                  }
                }
              }
              return out + "\""
            }

            func send(_ line: String) {
              let bytes = Array((line + "\n").utf8)
              pthread_mutex_lock(&channelLock)
              defer { pthread_mutex_unlock(&channelLock) }
              var offset = 0
              while offset < bytes.count {
                let written = bytes.withUnsafeBytes { raw -> Int in
                  guard let base = raw.baseAddress else { return 0 }
                  return write(channel, base + offset, raw.count - offset)
                }
                if written < 0, errno == EINTR { continue }
                if written <= 0 { exit(0) }
                offset += written
              }
            }

            /// The value of `"key":` in a request line, which tokendash writes itself: a number or a string.
            func field(_ key: String, in line: String) -> String? {
              guard let start = line.range(of: "\"\(key)\":") else { return nil }
              var rest = line[start.upperBound...]
              guard rest.first == "\"" else { return String(rest.prefix { $0.isNumber }) }
              rest = rest.dropFirst()
              var value = ""
              var escaped = false
              for c in rest {
                if escaped { value.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { return value } else { value.append(c) }
              }
              return nil
            }

            final class Request: @unchecked Sendable {
              let call: Int
              let id: String
              let task: String?
              init(call: Int, id: String, task: String?) { (self.call, self.id, self.task) = (call, id, task) }
            }

            let provider = \#(className)()
            send("{\"t\":\"ready\"}")

            func run(_ request: Request) {
              let context = \#(context)
              provider.fetchToken(with: context) { token, error in
                var line = "{\"t\":\"completion\",\"call\":\(request.call)"
                if let token { line += ",\"token\":" + quoted(token) }
                if let error { line += ",\"error\":" + quoted(String(describing: error)) }
                send(line + "}")
              }
              send("{\"t\":\"returned\",\"call\":\(request.call)}")
            }

            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
              let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
              if count < 0, errno == EINTR { continue }
              if count <= 0 { break }
              pending += buffer[0..<count]
              while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                guard let call = field("call", in: line).flatMap({ Int($0) }), let id = field("id", in: line) else { continue }
                let box = Unmanaged.passRetained(Request(call: call, id: id, task: field("task", in: line))).toOpaque()
                var thread = pthread_t()
                let started = pthread_create(&thread, nil, { raw in
                  guard let raw else { return nil }
                  run(Unmanaged<Request>.fromOpaque(raw).takeRetainedValue())
                  return nil
                }, box)
                if started == 0 { pthread_detach(thread) }
              }
            }
            exit(0)

            """#
    }
}
