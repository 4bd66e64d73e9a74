/// The provider hosts' own programs (HostPrograms/: the Swift host, the Objective-C host and the
/// SDKs' stand-in headers it is built with, the JVM host and its stand-in classes), as the files read. They are built with the customer's
/// class, not with tokendash, so SwiftPM embeds them in the binary (`.embedInCode`) instead of
/// compiling them: one copy, the file itself.
enum HostProgramSources {
    static let swift = text(PackageResources.main_swift)
    static let objectiveC = text(PackageResources.main_m)
    static let driverHeader = text(PackageResources.GoogleRidesharingDriver_h)
    static let consumerHeader = text(PackageResources.GoogleRidesharingConsumer_h)
    static let java = text(PackageResources.TokendashHost_java)
    // Named apart here (SwiftPM names a resource by its file's name alone); written under the
    // names javac wants by StandInSDK.javaStandIns.
    static let javaDriverContext = text(PackageResources.DriverAuthTokenContext_java)
    static let javaConsumerContext = text(PackageResources.ConsumerAuthTokenContext_java)
    static let javaConsumerFactory = text(PackageResources.ConsumerAuthTokenFactory_java)
    static let javaUri = text(PackageResources.AndroidUri_java)

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
