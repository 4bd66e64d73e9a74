// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "tokendash",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tokendash", targets: ["tokendash"]),
        .executable(name: "tokendash-bench", targets: ["tokendash-bench"]),
        .library(name: "FleetAuth", targets: ["FleetAuth"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/swhitty/FlyingFox.git", from: "0.27.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    ],
    targets: [
        // Provider cores: fetch, cache, refresh, events. No UI, no server.
        // swift-crypto only for token fingerprints (SHA-256); see TokenFingerprint for the fuzz build.
        .target(name: "FleetAuth", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // Signature checks against a JWKS through jwt-kit, behind FleetAuth's SignatureVerifier.
        .target(
            name: "TokenSignatures",
            dependencies: ["FleetAuth", .product(name: "JWTKit", package: "jwt-kit")]
        ),
        // The embedded backend: mints RS256 Fleet Engine JWTs on loopback.
        .target(
            name: "TokenServer",
            dependencies: [
                "FleetAuth",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "FlyingFox", package: "FlyingFox"),
            ]
        ),
        // Many simulated SDKs driving providers, and aggregates of their events.
        .target(name: "Fleet", dependencies: ["FleetAuth"]),
        // Headless output: provider events as JSON lines.
        .target(name: "Watch", dependencies: ["Fleet", "FleetAuth"]),
        // State, reducer, layout and themes: pure Swift, rendered to a Canvas.
        .target(
            name: "Dashboard",
            dependencies: ["FleetAuth", "Fleet", .product(name: "Yams", package: "Yams")]
        ),
        .systemLibrary(
            name: "CNcurses",
            pkgConfig: "ncursesw",
            providers: [.apt(["libncurses-dev"])]
        ),
        // The thin ncurses backend: draws a Canvas, reads keys.
        .target(name: "Terminal", dependencies: ["CNcurses", "Dashboard"]),
        .executableTarget(
            name: "tokendash",
            dependencies: [
                "FleetAuth", "TokenServer", "TokenSignatures", "Dashboard", "Terminal", "Fleet", "Watch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Throughput and latency measurements; `swift run -c release tokendash-bench [SECTION]`.
        .executableTarget(name: "tokendash-bench", dependencies: ["FleetAuth", "TokenServer", "Fleet", "Dashboard"]),
        .testTarget(
            name: "FleetAuthTests",
            dependencies: ["FleetAuth", .product(name: "FlyingFox", package: "FlyingFox")]
        ),
        // Signatures checked against key sets from files and loopback URLs, with keys made in the test.
        .testTarget(
            name: "TokenSignaturesTests",
            dependencies: [
                "TokenSignatures", "TokenServer", "FleetAuth",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "FlyingFox", package: "FlyingFox"),
            ]
        ),
        // Runs the built binary: `watch` over loopback, and the dashboard in tmux.
        .testTarget(name: "EndToEndTests", dependencies: ["tokendash", "FleetAuth", .product(name: "FlyingFox", package: "FlyingFox")]),
        .testTarget(name: "FleetTests", dependencies: ["Fleet", "Watch", "FleetAuth"]),
        .testTarget(
            name: "TokenServerTests",
            dependencies: [
                "TokenServer", "FleetAuth",
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        .testTarget(name: "DashboardTests", dependencies: ["Dashboard", "Fleet", "FleetAuth"]),
    ],
    swiftLanguageModes: [.v6]
)
