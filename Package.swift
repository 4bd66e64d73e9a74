// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "tokendash",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tokendash", targets: ["tokendash"]),
        .executable(name: "tokendash-bench", targets: ["tokendash-bench"]),
        .library(name: "ProviderVocabulary", targets: ["ProviderVocabulary"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/swhitty/FlyingFox.git", from: "0.27.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Already resolved for AsyncHTTPClient; named to catch the decompressor's zip-bomb error by type.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // gzip-compressed Cloud Logging exports, inflated as a stream (LogReading).
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
    ],
    targets: [
        // JSON as tokendash reads and writes it: `JSONValue` (integers kept apart from fractions),
        // `JSONObject` in written order, the hand reader for plain JSON beside JSONDecoder, and the
        // string writer. No dependencies.
        .target(name: "JSONValues"),
        // What a token backend sends, read: a JWT split and decoded (base64url, the header and
        // claims), its fingerprint, the answer's shape and expiry, HTTP dates and Retry-After.
        // Below the provider vocabulary, which wraps its error. swift-crypto only for the
        // fingerprint's SHA-256; scripts/fuzz.sh compiles it with bare swiftc, where
        // TokenFingerprint falls back (see there).
        .target(
            name: "TokenReading",
            dependencies: ["Redaction", "JSONValues", .product(name: "Crypto", package: "swift-crypto")]),
        // What every part shares about providers: token kinds and IDs, authorization contexts,
        // endpoints, fetched tokens, rule results, errors, the transport and verifier protocols,
        // clocks, bounds. No judging, no provider, no UI, no server.
        .target(name: "ProviderVocabulary", dependencies: ["Redaction", "JSONValues", "TokenReading"]),
        // Fleet Engine's REST methods as the simulated SDKs call them, where the calls go, and
        // Fleet Engine's answer read (a provider event carries it).
        .target(name: "FleetEngineAPI", dependencies: ["Redaction", "ProviderVocabulary", "JSONValues"]),
        // Provider events: the one record of what a provider did, what it carries (a proxy's
        // exchange, a class's breach), the bus that fans it out, and the counts made from it.
        .target(name: "ProviderEvents", dependencies: ["Redaction", "ProviderVocabulary", "FleetEngineAPI"]),
        // Secrets kept off the screen, the logs, recordings, metrics and errors: tokens (whole or
        // as found in text), URL and proxy credentials, header values, and any secret a run
        // registers. Its own module, as DESIGN.md has it: every output path names it, and nothing
        // of the provider vocabulary comes with it. No dependencies.
        .target(name: "Redaction"),
        // Judging a token: Fleet Engine's rules (TokenRules) and reading a backend's answer
        // (TokenResponseDecoder). A rule's change rebuilds what judges, not the Fleet Engine client.
        .target(name: "TokenJudging", dependencies: ["JSONValues", "TokenReading", "Redaction", "ProviderVocabulary"]),
        // The provider cores: tokendash's caching provider and the samples' ports (Swift and
        // Objective-C), fetching, caching, refreshing and publishing events.
        .target(
            name: "TokenProviders",
            dependencies: ["JSONValues", "ProviderEvents", "TokenReading", "ProviderVocabulary", "TokenJudging"]),
        // The simulated SDKs' Fleet Engine calls: schedule, pace, request, answer. The verdict it
        // compares an answer with is passed in (`TokenRules.verdict`), so it builds without the rules.
        .target(
            name: "FleetEngineClient",
            dependencies: ["FleetEngineAPI", "ProviderEvents", "TokenReading", "ProviderVocabulary", "Pacing"]),
        // Rates that listen to their backend (AIMD on latency and overload answers, a window of
        // calls in flight): the fleet's ramp and its Fleet Engine calls. Pure; callers bring the time.
        .target(name: "Pacing"),
        // The one fault vocabulary the embedded server, the dashboard, scenarios and recordings share.
        .target(name: "Faults", dependencies: ["ProviderVocabulary"]),
        // Signature checks against a JWKS through jwt-kit, behind ProviderVocabulary's SignatureVerifier.
        .target(
            name: "TokenSignatures",
            dependencies: [
                "TokenReading", "Redaction", "ProviderVocabulary", "TokenJudging",
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        // The parts the three proxies (the tap, the provider's loopback proxy, the tests' forward
        // proxy) share: request heads decoded by NIOHTTP1, the one CONNECT writer,
        // RFC 9110's hop-by-hop removal, the byte relay and the registry of open channels, one
        // wording of connection failures, and the values that say where a request goes (the proxy
        // settings curl would choose, a proxy server, the trust): the proxies need those without
        // AsyncHTTPClient. No HTTP parsed by hand; nothing of tokendash's own above it but ProviderVocabulary.
        .target(
            name: "ProxyKit",
            dependencies: [
                "Redaction",
                "ProviderVocabulary", "NetworkAddresses",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The real HTTP(S) transport behind `TokenTransport`: AsyncHTTPClient, private CAs,
        // redirects followed by hand (loops named), proxies chosen per target as curl does, gzip and
        // deflate answers decoded under a zip-bomb limit, every failure in words.
        .target(
            name: "HTTPTransport",
            dependencies: [
                "ProviderVocabulary", "ProxyKit", "NetworkAddresses",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // tokendash's loopback forward proxy in front of a source provider's host: its requests
        // logged as events, the faults acted out there, the user's own proxy honoured upstream.
        .target(
            name: "ProviderProxy",
            dependencies: [
                "ProviderEvents", "TokenReading",
                "Redaction",
                "Faults", "ProviderVocabulary", "ProxyKit",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // A real forward proxy on loopback (CONNECT, and absolute-form plain http; its own name
        // table) for the proxy tests and the bench's proxied fetches; not part of the tokendash binary.
        .target(
            name: "LoopbackProxy",
            dependencies: [
                "ProviderVocabulary", "ProxyKit",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // `tokendash tap`'s forwarding: a reverse proxy (SwiftNIO) in front of the customer's token
        // backend that forwards every exchange as it came, fails open, and hands a copy of each
        // (`TapExchange`) to whoever reads them. Knows nothing of tokens.
        .target(
            name: "TapForwarding",
            dependencies: [
                "ProviderVocabulary", "ProxyKit", "NetworkAddresses",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // `tokendash tap`'s reading, beside the forwarding and off its path: each exchange's ID, token
        // and today's verdict, churn per ID in a ledger, and the tap's Prometheus series.
        .target(
            name: "TapReading",
            dependencies: [
                "JSONValues", "ProviderEvents", "TokenReading",
                "Redaction",
                "TapForwarding", "FleetTables", "ProviderVocabulary", "TokenJudging", "EventLines", "ThreadExecutor",
                // The queue between forwarding and reading (`CircularBuffer`).
                .product(name: "NIOCore", package: "swift-nio"),
                // The tap's own series (`TapMetrics`), beside the reading that counts them.
                "TokenMetrics", .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // Fleet Engine's own logs: Cloud Logging exports (any shape, gzip, folders, stdin) read as a
        // stream into entries, per-ID aggregates, silences and the version table. No UI, no sockets.
        // CompressNIO for gzip; scripts/fuzz.sh compiles it with bare swiftc, where gzip is left out.
        .target(
            name: "LogReading",
            dependencies: [
                "JSONValues", "TokenReading",
                "ProviderVocabulary", "Redaction",
                .product(name: "CompressNIO", package: "compress-nio"),
                // The gzip reader's ByteBuffers.
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // `tokendash logs FILE`'s screen: a LogSummary as a table of IDs and one ID's detail, drawn
        // into a Canvas by pure functions; the terminal is the CLI's.
        .target(name: "LogsScreen", dependencies: ["LogReading", "UICore", "Settings", "ProviderVocabulary"]),
        // The small HTTP/1.1 server (SwiftNIO) that the embedded token server, its Fleet Engine
        // emulator and `/metrics` stand on: routes answer a `RouteRequest`; no jwt-kit, no tokens.
        .target(
            name: "RouteServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The embedded backend: mints RS256 Fleet Engine JWTs on loopback, over the route server.
        .target(
            name: "TokenServer",
            dependencies: [
                "FleetEngineAPI", "JSONValues", "TokenReading",
                "Faults",
                "ProviderVocabulary", "TokenJudging", "Pacing",
                "RouteServer",
                // HostPort for the server's own URL, and what is loopback.
                "NetworkAddresses",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                // The Fleet Engine emulator's cache of verified tokens, by SHA-256.
                .product(name: "Crypto", package: "swift-crypto"),
                // The server's own `/metrics`: mints, mint latency, faults, requests by route.
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The one table of settings: each flag's and config key's kind, range, default and help.
        // Its own module above ProviderVocabulary (whose enums and bounds it names) because the flags, the
        // config reader, scenarios and recordings all read it and none of them depends on another.
        .target(name: "Settings", dependencies: ["FleetEngineAPI", "TokenReading", "ProviderVocabulary"]),
        // Many simulated SDKs driving providers, and aggregates of their events.
        .target(
            name: "Fleet",
            dependencies: [
                "FleetEngineAPI", "ProviderEvents", "ProviderVocabulary", "FleetTables", "FleetEngineClient",
                "TokenJudging",
                "TokenProviders", "Pacing",
            ]),
        // The fleet table's values (members, their status, the tap's counts and columns): what the
        // table shows, apart from the simulated SDKs that fill it, so the tap's reading has them
        // without the fleet.
        .target(name: "FleetTables", dependencies: ["FleetEngineAPI", "ProviderEvents", "ProviderVocabulary"]),
        // Provider events as JSON lines: what `watch` and `tap --watch` print and snapshots hold.
        // Named for what it encodes, not for one subcommand, since the runtime and the tap use it too.
        .target(name: "EventLines", dependencies: ["JSONValues", "ProviderEvents", "Redaction", "ProviderVocabulary"]),
        // Provider events as Prometheus series (swift-prometheus), for `--metrics`.
        .target(
            name: "TokenMetrics",
            dependencies: [
                "FleetEngineAPI", "ProviderEvents",
                "FleetTables",
                "Fleet", "ProviderVocabulary", "Pacing", "NetworkAddresses",
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // YAML from outside (config, scenarios, themes) read with limits: its size, UTF-8 named
        // at its line, aliases expanding to at most 10,000 nodes, one error shape. A module of its
        // own because all three readers need it and none of them depends on another's.
        .target(name: "BoundedYAML", dependencies: [.product(name: "Yams", package: "Yams")]),
        // The leaf both the screen logic and the terminal need: Canvas (plain-data cells), Key,
        // Theme, styles. Nothing else, so the terminal does not drag in providers or YAML.
        .target(name: "UICore"),
        // The key table: commands, their default keys, remaps and their conflicts. Its own module
        // because the config file's reader checks remaps against it and needs nothing else of the
        // dashboard.
        .target(name: "KeyTable", dependencies: ["UICore", "ProviderVocabulary"]),
        // State, reducer, layout and themes: pure Swift, rendered to a Canvas.
        .target(
            name: "Dashboard",
            dependencies: [
                "FleetEngineAPI", "ProviderEvents",
                "FleetTables",
                "Redaction",
                "UICore", "KeyTable", "Faults", "ProviderVocabulary", "TokenJudging", "Fleet", "Pacing",
                "BoundedYAML",
                .product(name: "Yams", package: "Yams"),
            ],
            // The shipped themes, carried by the binary as bytes (`PackageResources`, read by BuiltinThemes).
            resources: ["default", "light", "high-contrast", "mono"].map { .embedInCode("Theme/Themes/\($0).yaml") }
        ),
        // The loop, the inbox, effects and event sources, over UICore's TerminalBackend: the
        // runtime without ncurses, unit-tested with a fake terminal and a test clock.
        .target(
            name: "DashboardRuntime",
            dependencies: [
                "ProviderEvents",
                "FleetTables",
                "UICore", "Dashboard", "Fleet", "ProviderVocabulary", "Pacing", "EventLines", "Recording", "Scenarios",
                "BoundedYAML", "ThreadExecutor",
            ]),
        // A recording's lines (header, events, tokens, the ramp's pace) and their writer on a
        // thread of its own: below the dashboard, so `watch` and the tap record without linking it.
        .target(
            name: "RecordingFormat",
            dependencies: [
                "FleetEngineAPI", "JSONValues", "ProviderEvents", "TokenReading", "FleetTables", "Redaction",
                "ProviderVocabulary", "Pacing", "ThreadExecutor",
            ]),
        // A session's recording as the dashboard reads it: its actions as lines and back, the
        // header's state, the bounded reader and the replay's timeline. The dashboard's runtime
        // replays it, and the evidence (casts, reports) is made from it.
        .target(
            name: "Recording",
            dependencies: [
                "ProviderEvents", "FleetTables", "Redaction", "RecordingFormat",
                "UICore", "Dashboard", "Faults", "Fleet", "ProviderVocabulary", "Settings",
            ]),
        // The live session behind the dashboard and `watch`: the backend (embedded or the user's)
        // and the simulated SDKs. Its own module because it needs the embedded server (jwt-kit,
        // SwiftNIO) and the real transport, which the runtime and the replay do without; it knows
        // nothing of the dashboard (the effect runner that acts on it lives with the dashboard command).
        .target(
            name: "LiveSession",
            dependencies: [
                "FleetEngineAPI", "ProviderEvents",
                "Redaction",
                "Fleet", "ProviderVocabulary", "HTTPTransport", "Pacing", "ProviderProxy", "TokenServer",
            ]
        ),
        // Evidence anyone can open, from a recording or live: the session as an asciicast (frames
        // from the Canvas as ANSI, markers from the actions) and as one self-contained HTML page.
        // No ncurses and no Terminal: it draws from the Canvas and the theme alone.
        .target(
            name: "Evidence",
            dependencies: [
                "RecordingFormat",
                "FleetEngineAPI", "JSONValues", "ProviderEvents",
                "FleetTables",
                "Redaction", "UICore", "Dashboard", "Recording", "Faults", "Fleet", "ProviderVocabulary",
                "TokenJudging", "LogReading", "LogsScreen",
            ]),
        // The config file: profiles, defaults and key remaps, each mistake at its file:line.
        .target(
            name: "ConfigFile",
            dependencies: [
                "Redaction",
                "KeyTable", "UICore", "ProviderVocabulary", "BoundedYAML", "Settings",
                .product(name: "Yams", package: "Yams"),
            ]),
        // Scripted demos: the YAML format, the built-ins, the runner over a target protocol. No
        // screen and no server: the dashboard shows what the runner reports.
        .target(
            name: "Scenarios",
            dependencies: [
                "ProviderEvents", "ProviderVocabulary", "Faults", "BoundedYAML", "Settings",
                .product(name: "Yams", package: "Yams"),
            ]),
        // The target scenarios drive: the simulated SDKs and the embedded server.
        .target(
            name: "ScenarioTargets",
            dependencies: ["Scenarios", "Faults", "Fleet", "ProviderVocabulary", "TokenServer"]),
        .systemLibrary(
            name: "CNcurses",
            pkgConfig: "ncursesw",
            providers: [.apt(["libncurses-dev"]), .brew(["ncurses"])]
        ),
        // Child processes without Foundation's Process (posix_spawn, a blocking wait4 on a thread of
        // its own): the customer's provider host, and the binaries the tests run. No dependencies.
        .target(name: "Spawning"),
        // The Objective-C runtime a `.m` provider needs on Linux (libobjc2 and GNUstep's Foundation):
        // where it is, and `tokendash setup objc`, which builds it from pinned source releases.
        .target(
            name: "ObjCRuntime",
            dependencies: [
                "Spawning", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // A task executor with a thread of its own, optionally below the process's priority: the
        // tap's reader, and the tests that would queue behind every suite on the pool. No dependencies.
        .target(name: "ThreadExecutor"),
        // The customer's own provider class (`--driver-source`): the SDKs' stand-in modules, the
        // build with the user's swiftc (cached by content), the host process it runs in, and the
        // provider core that drives it as the SDK does and judges what it hands back.
        .target(
            name: "ProviderHost",
            dependencies: [
                "JSONValues", "ProviderEvents", "TokenReading",
                "Redaction",
                "ProviderVocabulary", "TokenJudging", "TokenProviders", "ObjCRuntime", "Spawning",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The hosts' own programs, built with the customer's class, not with tokendash: the
            // binary carries them as bytes (`PackageResources`, read by HostProgramSources).
            resources: [
                .embedInCode("HostPrograms/main.swift"), .embedInCode("HostPrograms/main.m"),
                .embedInCode("HostPrograms/objc/GoogleRidesharingDriver/GoogleRidesharingDriver.h"),
                .embedInCode("HostPrograms/objc/GoogleRidesharingConsumer/GoogleRidesharingConsumer.h"),
                .embedInCode("HostPrograms/java/TokendashHost.java"),
                .embedInCode("HostPrograms/java/sdk/DriverAuthTokenContext.java"),
                .embedInCode("HostPrograms/java/sdk/ConsumerAuthTokenContext.java"),
                .embedInCode("HostPrograms/java/sdk/ConsumerAuthTokenFactory.java"),
                .embedInCode("HostPrograms/java/sdk/AndroidUri.java"),
            ]
        ),
        // A host and a port as `host:port` or `[v6]:port`, read and written in one place, and which
        // hosts are loopback: for the proxies, the servers and `--metrics`, none of which need
        // another's module for it. No dependencies.
        .target(name: "NetworkAddresses"),
        // Signal handlers installed one way: SIGINT/SIGTERM/SIGHUP as an awaitable event for the
        // commands, and the crash handlers that give the terminal back. No dependencies.
        .target(name: "Signals"),
        // The thin ncurses backend: draws a Canvas, reads keys.
        .target(name: "Terminal", dependencies: ["CNcurses", "Signals", "UICore"]),
        // What this build is: the release number and the commit `scripts/release.sh` stamps in.
        // Below every command, so the stamp recompiles one small file. No dependencies.
        .target(name: "BuildInfo"),
        // The commands that run without a screen (`watch`, `serve`, the tap's `--watch`) and what
        // they share with the dashboard: the backend's flags resolved into a session, `--metrics`,
        // `--record`, the tap's parts. No Dashboard, DashboardRuntime or Terminal below it.
        .target(
            name: "HeadlessCommands",
            dependencies: [
                "BuildInfo", "BoundedYAML", "ConfigFile", "EventLines", "Faults", "Fleet", "FleetEngineAPI",
                "HTTPTransport", "LiveSession", "NetworkAddresses", "Pacing", "ProviderEvents", "ProviderHost",
                "ProviderProxy", "ProviderVocabulary", "ProxyKit", "RecordingFormat", "Redaction", "RouteServer",
                "Settings", "Signals", "TapForwarding", "TapReading", "TokenJudging", "TokenMetrics", "TokenProviders",
                "TokenReading", "TokenServer", "TokenSignatures",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The command tree and the commands with a screen (the dashboard, the tap's, `replay`,
        // `logs`) or of their own (`decode`, `report`, `config`, `setup`): everything the
        // executable does, as a library so tests parse arguments and assemble sessions in-process.
        .target(
            name: "TokendashCLI",
            dependencies: [
                "BuildInfo", "HeadlessCommands",
                "FleetEngineAPI", "JSONValues", "ProviderEvents", "TokenReading",
                "FleetTables",
                "Redaction",
                "Faults", "ProviderVocabulary", "FleetEngineClient", "TokenJudging", "HTTPTransport",
                "ProxyKit", "TapReading", "TokenServer",
                "TokenSignatures",
                "UICore",
                "Dashboard",
                "KeyTable", "DashboardRuntime", "Evidence", "LiveSession", "ObjCRuntime", "Recording",
                "RecordingFormat",
                "Terminal",
                "Signals",
                "Fleet",
                "EventLines", "ConfigFile", "Scenarios", "ScenarioTargets", "BoundedYAML", "LogsScreen",
                "LogReading", "Settings", "NetworkAddresses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The executable: main.swift calls TokenDash.runFromCommandLine().
        .executableTarget(name: "tokendash", dependencies: ["TokendashCLI"]),
        // Throughput and latency measurements; `swift run -c release tokendash-bench [SECTION]`.
        .executableTarget(
            name: "tokendash-bench",
            dependencies: [
                "RecordingFormat",
                "FleetEngineAPI", "ProviderEvents", "TokenReading",
                "FleetTables",
                "ProviderVocabulary", "FleetEngineClient", "TokenJudging", "TokenProviders", "HTTPTransport",
                "ProxyKit",
                "Pacing", "RouteServer", "TokenServer", "Fleet", "UICore", "Dashboard",
                "TokenMetrics",
                // The evidence section: a recording folded, cast and reported.
                "DashboardRuntime", "Evidence", "Recording",
                // The transport section's fetches through a CONNECT proxy.
                "LoopbackProxy",
                // The source section: a customer's class through its host, against a bare echo.
                "ObjCRuntime", "ProviderHost", "Spawning",
                // The tap section: the tap and the bare proxy it is measured against, its reader placed.
                "TapForwarding", "TapReading", "ThreadExecutor",
                // The logs section's seek: the screen's playhead over the export it read.
                "LogReading", "LogsScreen",
                .product(name: "FlyingFox", package: "FlyingFox"), .product(name: "FlyingSocks", package: "FlyingFox"),
                // The mint section's baseline: jwt-kit signing alone, with a key made for the run.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // What the test targets share: one JWT builder, the event recorder, a fake and a loopback
        // backend, the shared HTTP client, fixed instants, a private CA. Only test targets depend on it.
        .target(
            name: "TestSupport",
            dependencies: [
                "JSONValues", "ProviderEvents", "TokenReading",
                "ProviderVocabulary", "HTTPTransport", "Spawning", "ThreadExecutor",
                // The golden frames' text: a Canvas's cells and roles.
                "UICore",
                .product(name: "FlyingFox", package: "FlyingFox"),
                // A private CA and an HTTPS server, made at test time.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/TestSupport"
        ),
        // Unit tests (no socket, no process; CI runs them in a network namespace with no network) are
        // the targets listed in Tests/unit-targets.txt; the others are integration tests (loopback
        // servers, child processes, tmux).
        // The providers' cores, rules, decoding and events over fake transports and clocks.
        .testTarget(
            name: "ProviderTests",
            dependencies: [
                "FleetEngineAPI", "JSONValues", "ProviderEvents", "TokenReading",
                "Redaction",
                "ProviderVocabulary", "FleetEngineClient", "TokenJudging", "TokenProviders", "Pacing", "TestSupport",
            ]),
        // The real transport over loopback: TLS with a private CA, proxies (a real forward proxy),
        // compressed and hostile answers, timeouts on a stepped clock.
        .testTarget(
            name: "TransportTests",
            dependencies: [
                "TokenReading",
                "ProviderVocabulary", "TokenJudging", "TokenProviders", "HTTPTransport", "ProxyKit", "NetworkAddresses",
                "TestSupport", "LoopbackProxy",
                .product(name: "FlyingFox", package: "FlyingFox"),
                // A private CA, certificates and an HTTPS server made at test time.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // A backend answering gzip and deflate (and a bomb) through NIO's own compressor.
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        // Signatures checked against key sets from files and loopback URLs, with keys made in the test.
        .testTarget(
            name: "TokenSignaturesTests",
            dependencies: [
                "TokenReading",
                "TokenSignatures", "TokenServer", "ProviderVocabulary", "TokenJudging", "TokenProviders",
                "HTTPTransport",
                "TestSupport", "TapForwarding",
                "TapReading",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "FlyingFox", package: "FlyingFox"),
            ]
        ),
        // Runs the built binary (`watch` over loopback, the dashboard in tmux) and the customers' provider classes in their host.
        // The command line parsed in-process: commands chosen, flags at their ranges' ends, repeats.
        .testTarget(
            name: "TokendashCLITests",
            dependencies: [
                "ProviderEvents",
                "FleetTables",
                "TokendashCLI", "HeadlessCommands", "LiveSession", "Dashboard", "DashboardRuntime", "Faults", "Fleet",
                "ProviderVocabulary",
                "TokenServer", "TestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "RecordingFormat",
                "JSONValues", "ProviderEvents", "TokenReading",
                "Redaction",
                "tokendash", "TokendashCLI", "HeadlessCommands", "ProviderVocabulary", "ObjCRuntime", "ProviderHost",
                "ProviderProxy",
                "TokenServer",
                "Faults", "LiveSession", "Spawning",
                "HTTPTransport", "ProxyKit",
                "TestSupport", "LoopbackProxy", .product(name: "FlyingFox", package: "FlyingFox"),
                // The evidence tests compare a cast against the replay's own frames.
                "Dashboard", "DashboardRuntime", "Recording", "UICore",
                // The commands' lifecycle tests start a dashboard's parts with its keys and scenarios.
                "KeyTable", "Scenarios",
            ],
            // Customers' provider classes the tests build with swiftc (through the binary, or in the host), not built by the package.
            exclude: ["Fixtures"]
        ),
        // The tap's route templates, exchange reading and churn ledger, and its forwarding end to end over loopback.
        .testTarget(
            name: "TapTests",
            dependencies: [
                "RecordingFormat",
                "JSONValues", "TokenReading",
                "FleetTables",
                "TapForwarding", "TapReading", "Fleet", "ProviderVocabulary", "HTTPTransport", "ProxyKit",
                "TestSupport",
                "Dashboard",
                "DashboardRuntime",
                "Evidence", "LoopbackProxy", "Recording", "UICore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The tap's own TLS in the test: a context made from a test CA's certificate.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "TokenMetricsTests",
            dependencies: [
                "FleetEngineAPI", "ProviderEvents", "TokenReading", "TokenMetrics", "Fleet", "ProviderVocabulary",
                "TapReading",
                "TestSupport",
            ]),
        .testTarget(
            name: "FleetTests",
            dependencies: [
                "FleetEngineAPI", "ProviderEvents", "TokenReading",
                "FleetTables",
                "Fleet", "EventLines", "ProviderVocabulary", "Pacing", "Settings",
                "TestSupport",
            ]),
        .testTarget(name: "PacingTests", dependencies: ["Pacing"]),
        // The thread-backed executor: one thread a task's jobs run on, scheduled as asked.
        .testTarget(name: "ThreadExecutorTests", dependencies: ["ThreadExecutor"]),
        .testTarget(
            name: "TokenServerTests",
            dependencies: [
                "FleetEngineAPI", "JSONValues", "TokenReading",
                "Faults", "RouteServer", "TokenServer", "ProviderVocabulary", "TokenJudging", "TokenProviders",
                "HTTPTransport",
                "TestSupport",
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        // The live session's effect runner over fake transports: effects carried out, answered with actions.
        .testTarget(
            name: "LiveSessionTests",
            dependencies: [
                "LiveSession", "Fleet", "ProviderVocabulary", "Pacing",
            ]
        ),
        // Evidence too: the live cast and the report are read from the loop these tests drive.
        .testTarget(
            name: "DashboardRuntimeTests",
            dependencies: [
                "RecordingFormat",
                "FleetEngineAPI", "ProviderEvents", "TokenReading",
                "FleetTables",
                "Redaction",
                "BoundedYAML", "Faults", "DashboardRuntime", "Evidence", "UICore", "Dashboard", "Fleet",
                "ProviderVocabulary",
                "Pacing", "Recording", "TestSupport", "Scenarios", "KeyTable",
                // The wake pipe the bootstrap's loop waits on.
                "Terminal",
            ]),
        // Each built-in scenario run against the embedded server and real providers under a test clock.
        .testTarget(
            name: "ScenariosTests",
            dependencies: [
                "FleetEngineAPI", "ProviderEvents", "TokenReading",
                "BoundedYAML", "Faults", "Scenarios", "ScenarioTargets", "TokenServer", "Fleet", "ProviderVocabulary",
                "HTTPTransport", "TestSupport",
            ]
        ),
        .testTarget(
            name: "DashboardTests",
            dependencies: [
                "FleetEngineAPI", "ProviderEvents", "TokenReading",
                "FleetTables",
                "Redaction", "Faults", "UICore", "Dashboard", "KeyTable", "Fleet", "ProviderVocabulary", "Pacing",
                "TestSupport",
            ]),
        .testTarget(name: "BoundedYAMLTests", dependencies: ["BoundedYAML", .product(name: "Yams", package: "Yams")]),
        // The settings table against the README's "Limits" table, and each entry with itself.
        .testTarget(name: "SettingsTests", dependencies: ["Settings", "ProviderVocabulary"]),
        // The customer's provider file read: the class found, the placeholders filled, compiler
        // and ThreadSanitizer output read (the builds and the host run in EndToEndTests).
        .testTarget(
            name: "ProviderHostTests",
            dependencies: [
                "JSONValues", "ProviderEvents",
                "ObjCRuntime", "ProviderHost", "ProviderProxy", "ProxyKit", "NetworkAddresses", "Faults",
                "ProviderVocabulary",
                "TestSupport",
            ]),
        // The proxies' shared parts on their own: HostPort, hop-by-hop removal, the CONNECT's bytes on
        // an EmbeddedChannel, the wording of connection failures. No socket.
        .testTarget(
            name: "ProxyKitTests",
            dependencies: [
                "ProxyKit", "NetworkAddresses",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // The Cloud Logging export reader: every shape, damage, splits and duplicates, silences and
        // the version table, over bytes in memory and times passed in.
        .testTarget(
            name: "LogReadingTests",
            dependencies: [
                "JSONValues",
                "LogReading", "ProviderVocabulary",
                // gzip-compressed fixtures, made in the test.
                .product(name: "CompressNIO", package: "compress-nio"), .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "ConfigFileTests", dependencies: ["BoundedYAML", "ConfigFile", "KeyTable", "UICore"]),
        // The logs screen's whole frames (Golden/) and keys, on exports built in the test.
        .testTarget(
            name: "LogsScreenTests", dependencies: ["LogsScreen", "LogReading", "UICore", "TestSupport"],
            exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
