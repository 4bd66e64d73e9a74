import Foundation
import TestSupport
import Testing

/// The customer's Android factory through the real binary: Google's skeleton `JsonAuthTokenFactory`
/// for the Driver SDK and the Consumer SDK (Fixtures/java/skeleton, saved as a customer pastes
/// them), compiled with javac and run on the JVM against the embedded server. The runs give a
/// fetch and a getToken the suite's patience (600 s): no deadline is what these test.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct AndroidProviderEndToEndTests {
    static let skeletons = JavaHostTests.fixtures.appendingPathComponent("skeleton")
    static let driver = skeletons.appendingPathComponent("driver/JsonAuthTokenFactory.java").path
    static let consumer = skeletons.appendingPathComponent("consumer/JsonAuthTokenFactory.java").path
    static let environment = BinaryRunner.environment(["XDG_CACHE_HOME": HostMisbehaviourTests.cache.path])

    /// The driver skeleton with its one fix: the context it reads is the parameter it was given.
    static func fixedDriver() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-android-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = try String(contentsOfFile: driver, encoding: .utf8)
        let fixed = text.replacingOccurrences(
            of: "requireNonNull(context.getVehicleId())", with: "requireNonNull(authTokenContext.getVehicleId())")
        #expect(fixed != text)
        let path = folder.appendingPathComponent("JsonAuthTokenFactory.java").path
        try Data(fixed.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theDriverSkeletonAsPublishedIsJavacsLocatedLineAndExit2() async throws {
        let result = try await BinaryRunner.run(
            ["watch", "--driver-source", Self.driver, "--only", "driver", "--duration", "1"],
            environment: Self.environment)
        #expect(result.status == 2)
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first == "\(Self.driver):26: error: cannot find symbol (symbol: variable context)", "\(result.stderr)")
    }

    /// Tokens of 60 s, updates every second: the driver's skeleton keeps a token until 10 minutes
    /// before its exp, the consumer's 5, so both are past their own expiry the moment they fetch
    /// and fetch again at every update. What was filled is said, and that no race check ran.
    @Test func withItsOneFixBothSkeletonsRunAndFetchAtEveryUpdate() async throws {
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "watch", "--driver-source", try Self.fixedDriver(), "--consumer-source", Self.consumer,
                "--update-interval", "1", "--duration", "120", "--timeout", "600", "--completion-timeout", "600",
            ], name: "android-watch", environment: Self.environment)
        for role in ["driver", "consumer"] {
            #expect(try await watch.await(3, linesWith: #""provider":"\#(role)""#, #""event":"fetched""#))
        }
        #expect(
            watch.output.contains(
                "JsonAuthTokenFactory.java:37: filled https://yourauthserver.example/token with http://127.0.0.1:"))
        #expect(watch.output.contains("JsonAuthTokenFactory.java:42: filled VehicleServiceToken with jwt"))
        #expect(
            watch.output.contains(
                "JsonAuthTokenFactory.java:14: filled https://yourauthserver.example/token with http://127.0.0.1:"))
        #expect(watch.output.contains("JsonAuthTokenFactory.java:51: filled ServiceToken with jwt"))
        #expect(watch.output.contains("no race check runs on a JVM"))
        // The backend is asked for the ID in the URL the skeleton builds.
        #expect(watch.output.contains(#"/session/consumer/trip-0001","status":200"#), "\(watch.output)")
        await watch.stop()
    }

    /// Tokens of an hour: the driver's skeleton keeps its token 50 minutes, so the next updates are
    /// answered from its cache.
    @Test func anHourLongTokenIsKeptAsTheSkeletonsArithmeticSays() async throws {
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "watch", "--driver-source", try Self.fixedDriver(), "--only", "driver", "--lifetime", "3600",
                "--update-interval", "1", "--duration", "120", "--timeout", "600", "--completion-timeout", "600",
            ], name: "android-hour", environment: Self.environment)
        #expect(try await watch.await(#""provider":"driver","id":"vehicle-0001","event":"(fetched)""#) != nil)
        // Three updates answered from its cache (a refetch would mint a new token each second), one fetch in all.
        #expect(try await watch.await(3, linesWith: #""provider":"driver""#, #""event":"cache_hit""#))
        #expect(watch.output.components(separatedBy: #""event":"fetched""#).count == 2, "\(watch.output)")
        await watch.stop()
    }

    /// `Uri.Builder` on the placeholder host: the stand-in builds the URL, its authority becomes
    /// the session route's, its https the server's http, and the query's trip is minted for.
    @Test func aUriBuilderURLReachesTheSessionRouteWithItsTrip() async throws {
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "watch", "--consumer-source",
                JavaHostTests.fixtures.appendingPathComponent("UriBuilderConsumer.java").path,
                "--only", "consumer", "--update-interval", "1", "--duration", "120", "--timeout", "600",
                "--completion-timeout", "600",
            ], name: "android-uri", environment: Self.environment)
        #expect(try await watch.await(#""provider":"consumer","id":"trip-0001","event":"(fetched)""#) != nil)
        #expect(
            watch.output.contains(#"/session/consumer/token?tripId=trip-0001","status":200"#), "\(watch.output)")
        #expect(watch.output.contains("UriBuilderConsumer.java:22: filled yourauthserver.example with 127.0.0.1:"))
        #expect(watch.output.contains("UriBuilderConsumer.java:21: filled https with http"))
        await watch.stop()
    }

    @Test func aConsumerFactoryGivenAsTheDriverIsOneLocatedLine() async throws {
        let result = try await BinaryRunner.run(
            ["watch", "--driver-source", Self.consumer, "--only", "driver", "--duration", "1"],
            environment: Self.environment)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "\(Self.consumer):12: error: JsonAuthTokenFactory implements consumer.auth.AuthTokenFactory, a consumer provider; pass it with --consumer-source"
            ), "\(result.stderr)")
    }

    @Test func withoutAJDKTheLineNamesThePackageToInstall() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("tokendash-no-jdk-\(getpid())")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let result = try await BinaryRunner.run(
            ["watch", "--driver-source", try Self.fixedDriver(), "--only", "driver", "--duration", "1"],
            environment: BinaryRunner.environment(["PATH": empty.path, "JAVA_HOME": ""]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("apt-get install openjdk-17-jdk-headless"), "\(result.stderr)")
    }

    // MARK: - Kotlin

    static let kotlin = HostMisbehaviourTests.fixtures.appendingPathComponent("kotlin")

    /// A Kotlin factory in the style of Google's Kotlin sample, compiled with Debian's kotlinc
    /// against the same stand-ins: fetched, then kept as its arithmetic says.
    @Test func aKotlinFactoryRunsAsTheJavaOneDoes() async throws {
        let watch = try BackgroundProcess(
            BinaryRunner.binary,
            [
                "watch", "--driver-source", Self.kotlin.appendingPathComponent("TripAuthTokenFactory.kt").path,
                "--only", "driver", "--lifetime", "3600", "--update-interval", "1", "--duration", "120", "--timeout",
                "600", "--completion-timeout", "600",
            ], name: "android-kotlin", environment: Self.environment)
        #expect(try await watch.await(#""provider":"driver","id":"vehicle-0001","event":"(fetched)""#) != nil)
        #expect(try await watch.await(#""provider":"driver","id":"vehicle-0001","event":"(cache_hit)""#) != nil)
        #expect(watch.output.contains("TripAuthTokenFactory.kt:23: filled https://yourauthserver.example/token with"))
        #expect(watch.output.contains("com.example.kotlindriver.TripAuthTokenFactory built for the JVM"))
        await watch.stop()
    }

    @Test func aKotlinCompileErrorIsKotlincsLocatedLineAndExit2() async throws {
        let path = Self.kotlin.appendingPathComponent("DoesNotCompile.kt").path
        let result = try await BinaryRunner.run(
            ["watch", "--driver-source", path, "--only", "driver", "--duration", "1"], environment: Self.environment)
        #expect(result.status == 2)
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("\(path):6:20: error: unresolved reference: tripId"), "\(result.stderr)")
    }
}
