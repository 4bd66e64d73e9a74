import Foundation
import ProviderVocabulary
import Testing

@testable import ProviderHost

/// A customer's Android factory read as a `.java` file: which SDK's interface it implements, its
/// package, the skeleton's URL and keys filled, javac's errors joined with their symbol, and the
/// words a breach of getToken's contract is said in.
@Suite(.timeLimit(.minutes(15)))
struct JavaSourceFileTests {
    static let driverImports = """
        import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
        import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;

        """
    static let consumerImports = """
        import com.google.android.libraries.mapsplatform.transportation.consumer.auth.AuthTokenContext;
        import com.google.android.libraries.mapsplatform.transportation.consumer.auth.AuthTokenFactory;

        """

    static func read(
        _ text: String, role: ProviderKind.Role = .driver, url: String = "http://127.0.0.1:7/session/driver"
    )
        throws -> ProviderSourceFile
    {
        let path = try ProviderSourceFileTests.file(text, name: "Factory.java")
        return try ProviderSourceFile.read(path, role: role, providerURL: url)
    }

    @Test func theDriversFactoryIsFoundByItsImportWithItsPackage() throws {
        let source = try Self.read(
            "package com.example.fleet;\n\n" + Self.driverImports
                + "class JsonAuthTokenFactory implements AuthTokenFactory {\n}\n")
        #expect(source.language == .java)
        #expect(source.className == "JsonAuthTokenFactory")
        #expect(source.qualifiedClassName == "com.example.fleet.JsonAuthTokenFactory")
    }

    @Test func theNestedNameIsTheDriversWithoutAnImport() throws {
        let source = try Self.read(
            "public final class F implements Serializable, AuthTokenContext.AuthTokenFactory {}\n")
        #expect(source.className == "F")
        #expect(source.packageName == nil)
        #expect(source.qualifiedClassName == "F")
    }

    @Test func aConsumersFactoryGivenAsTheDriverSaysWhichFlagTakesIt() throws {
        let problem = try ProviderSourceFileTests.problem(
            Self.consumerImports + "class TripFactory implements AuthTokenFactory {}\n", name: "TripFactory.java")
        #expect(
            problem
                == "FILE:3: error: TripFactory implements consumer.auth.AuthTokenFactory, a consumer provider; pass it with --consumer-source"
        )
    }

    @Test func aMentionInACommentOrStringIsNoClass() throws {
        let problem = try ProviderSourceFileTests.problem(
            "// class Old implements AuthTokenFactory {\nString s = \"class X implements AuthTokenFactory {\";\n",
            name: "Nothing.java")
        #expect(
            problem
                == "FILE:1: error: no class implementing AuthTokenContext.AuthTokenFactory (the Driver SDK's token factory for Android) was found in this file; is this the factory's Java file?"
        )
    }

    /// The driver page's URL and keys, and the consumer page's Uri.Builder, become the embedded
    /// server's session route and its keys; each filling is reported with its line.
    @Test func theSkeletonsURLAndKeysAreFilledTogether() {
        let text = """
            String url = "https://yourauthserver.example/token/" + vehicleId;
            token = obj.get("VehicleServiceToken").getAsString();
            expiryTimeMs = obj.get("TokenExpiryMs").getAsLong();
            new Uri.Builder().scheme("https").authority("yourauthserver.example").appendPath("token")
            other = obj.get("Token");
            """
        let (filled, fillings) = Placeholders.fill(
            text, role: .driver, providerURL: "http://127.0.0.1:7/session/driver", language: .java)
        #expect(
            filled == """
                String url = "http://127.0.0.1:7/session/driver/" + vehicleId;
                token = obj.get("jwt").getAsString();
                expiryTimeMs = obj.get("expirationTimestamp").getAsLong();
                new Uri.Builder().scheme("http").authority("127.0.0.1:7/session/driver").appendPath("token")
                other = obj.get("Token");
                """)
        #expect(fillings.map(\.line) == [1, 2, 3, 4, 4])
        #expect(fillings[0].placeholder == "https://yourauthserver.example/token")
    }

    /// Against the user's own backend there is no URL to give: its keys are its backend's, left as they are.
    @Test func withoutAURLNothingIsFilled() {
        let text = #"String url = "https://yourauthserver.example/token/" + id; obj.get("TokenExpiryMs");"#
        let (filled, fillings) = Placeholders.fill(
            text, role: .driver, providerURL: "INSERT_YOUR_TOKEN_PROVIDER_URL", language: .java)
        #expect(filled == text)
        #expect(fillings.isEmpty)
    }

    @Test func javacsSymbolLineJoinsItsError() {
        let output = """
            JsonAuthTokenFactory.java:24: error: cannot find symbol
                String vehicleId = requireNonNull(context.getVehicleId());
                                                  ^
              symbol:   variable context
              location: class JsonAuthTokenFactory
            1 error
            """
        let errors = CompilerOutput.errors(
            JavacOutput.joined(output), copies: ["JsonAuthTokenFactory.java": "/home/me/JsonAuthTokenFactory.java"],
            hostFile: "TokendashHost.java", tool: "javac")
        #expect(
            errors == ["/home/me/JsonAuthTokenFactory.java:24: error: cannot find symbol (symbol: variable context)"])
    }

    @Test func theLauncherQuotesEveryWordButItsOwnFolder() {
        #expect(
            JavaHostBuild.shellWord("$here/classes:/usr/share/java/gson.jar")
                == #""$here"'/classes:/usr/share/java/gson.jar'"#)
        #expect(JavaHostBuild.shellWord("it's") == #"'it'\''s'"#)
    }

    @Test func withoutJavacTheSentenceNamesDebiansJDK() {
        do {
            _ = try JavaToolchain.find(environment: ["PATH": "/nonexistent"])
            Issue.record("a JDK was found")
        } catch {
            #expect(error.description.contains("apt-get install openjdk-17-jdk-headless"))
        }
    }

    @Test func aKotlinClassHeadersSupertypesAreAfterItsConstructor() {
        #expect(
            ConformingClass.kotlinSupertypes(
                "(\n  application: Application,\n  executor: Executor = Executors.newFixedThreadPool(2)\n) : AuthTokenContext.AuthTokenFactory, Closeable "
            ) == ["AuthTokenContext.AuthTokenFactory", "Closeable"])
        #expect(ConformingClass.kotlinSupertypes(" : Base(1, 2), AuthTokenFactory") == ["Base", "AuthTokenFactory"])
        #expect(ConformingClass.kotlinSupertypes("(val a: Int)").isEmpty)
    }

    @Test func aKotlinFactoryIsFoundWithItsPackageAndABodilessClassBeforeItIsNot() throws {
        let path = try ProviderSourceFileTests.file(
            "package com.example.kotlindriver\n\n" + Self.driverImports.replacingOccurrences(of: ";", with: "")
                + "data class Settings(val url: String)\n"
                + "internal class TripAuthTokenFactory(private val s: Settings = Settings(\"x\")) :\n    AuthTokenContext.AuthTokenFactory {\n}\n",
            name: "TripAuthTokenFactory.kt")
        let source = try ProviderSourceFile.read(path, role: .driver, providerURL: "http://x")
        #expect(source.language == .kotlin)
        #expect(source.className == "TripAuthTokenFactory")
        #expect(source.qualifiedClassName == "com.example.kotlindriver.TripAuthTokenFactory")
    }

    /// A factory nested in another class is known to the JVM by its binary name; one declared
    /// after another class's body is not nested in it.
    @Test func aNestedFactoryIsFoundByItsBinaryName() throws {
        let java = try Self.read(
            "package com.example.app;\n\npublic class FleetApp {\n  void f() { if (true) { } }\n"
                + "  private static final class Factory implements AuthTokenContext.AuthTokenFactory {\n  }\n}\n")
        #expect(java.className == "Factory")
        #expect(java.qualifiedClassName == "com.example.app.FleetApp$Factory")
        let after = try Self.read(
            "class Helper { }\nclass JsonFactory implements AuthTokenContext.AuthTokenFactory {\n}\n")
        #expect(after.qualifiedClassName == "JsonFactory")
        let path = try ProviderSourceFileTests.file(
            "class App {\n  class Factory : AuthTokenContext.AuthTokenFactory {\n  }\n}\n", name: "App.kt")
        let kotlin = try ProviderSourceFile.read(path, role: .driver, providerURL: "http://x")
        #expect(kotlin.qualifiedClassName == "App$Factory")
    }
}
