import Foundation
import ProviderVocabulary

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

    /// The protocol a class of `role` conforms to, as the SDK names it; for Java, the Android
    /// SDK's interface as Google's samples name it.
    public static func protocolName(_ role: ProviderKind.Role, language: ProviderSourceFile.Language = .swift)
        -> String
    {
        switch (language, role) {
        case (.java, .driver), (.kotlin, .driver): "AuthTokenContext.AuthTokenFactory"
        case (.java, .consumer), (.kotlin, .consumer): "consumer.auth.AuthTokenFactory"
        case (_, .driver): "GMTDAuthorization"
        case (_, .consumer): "GMTCAuthorization"
        }
    }

    /// The Android Driver SDK's package of `AuthTokenContext` and its nested `AuthTokenFactory`
    /// (googlemaps/android-on-demand-rides-deliveries-samples, the driver's TripAuthTokenFactory.java).
    static let androidDriverPackage = "com.google.android.libraries.mapsplatform.transportation.driver.api.base.data"
    /// The Android Consumer SDK's package of `AuthTokenContext` and `AuthTokenFactory` (the same
    /// samples' consumer TripAuthTokenFactory.java).
    static let androidConsumerPackage = "com.google.android.libraries.mapsplatform.transportation.consumer.auth"

    /// The Java stand-ins a factory is compiled against, at the paths javac wants for their
    /// packages: the SDKs' context and factory and the one Android class the samples use.
    static let javaStandIns: [String: String] = [
        androidDriverPackage.replacingOccurrences(of: ".", with: "/") + "/AuthTokenContext.java":
            HostProgramSources.javaDriverContext,
        androidConsumerPackage.replacingOccurrences(of: ".", with: "/") + "/AuthTokenContext.java":
            HostProgramSources.javaConsumerContext,
        androidConsumerPackage.replacingOccurrences(of: ".", with: "/") + "/AuthTokenFactory.java":
            HostProgramSources.javaConsumerFactory,
        "android/net/Uri.java": HostProgramSources.javaUri,
    ]

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

        // Unchecked: NSObject is not Sendable, and the context's fields are immutable `let`s.
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

        // Unchecked: NSObject is not Sendable, and the context's fields are immutable `let`s.
        public final class GMTCAuthorizationContext: NSObject, @unchecked Sendable {
          public let tripID: String
          @_spi(TokendashHost) public init(tripID: String) {
            self.tripID = tripID
          }
        }

        """#

    /// The host's `main.swift` for the class `className` of `role`: HostPrograms/main.swift, which
    /// is written for a driver class named `TokendashStubProvider`, with its module, its context
    /// and its class replaced (each stands once in the file; a test checks so).
    public static func hostMain(role: ProviderKind.Role, className: String) -> String {
        var text = HostProgramSources.swift
        for (stub, wanted) in hostReplacements(role: role, className: className) {
            text = text.replacingOccurrences(of: stub, with: wanted)
        }
        return text
    }

    /// What hostMain replaces in the host's file, and with what.
    static func hostReplacements(role: ProviderKind.Role, className: String) -> [(String, String)] {
        [
            ("import GoogleRidesharingDriver\n", "import \(moduleName(role))\n"),
            (
                "GMTDAuthorizationContext(vehicleID: request.id, taskID: request.task)",
                role == .driver
                    ? "GMTDAuthorizationContext(vehicleID: request.id, taskID: request.task)"
                    : "GMTCAuthorizationContext(tripID: request.id)"
            ),
            ("= TokendashStubProvider()\n", "= \(className)()\n"),
        ]
    }
}
