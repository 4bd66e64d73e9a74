import FleetEngineAPI
import ProviderVocabulary
import TokenReading

/// The table: every setting's one entry. A range, default or help text is written here and
/// nowhere else; the flags' help and checks, the config reader, scenarios, recordings and the
/// docs/limits.md (checked by `SettingsTests`) read it.
extension Setting {
    /// Token lifetimes, in seconds: Fleet Engine accepts at most an hour.
    public static let lifetimes = 1...3600
    /// SDKs of one side a run simulates, and so members of a kind a recording may list.
    public static let fleetSizes = 1...100_000

    public var entry: SettingEntry {
        let longest = InputBounds.longestDuration
        switch self {
        case .solution:
            return SettingEntry(
                .choice(ProviderKind.Solution.allCases.map(\.rawValue)),
                default: ProviderKind.Solution.onDemand.rawValue,
                "Which Fleet Engine solution's SDKs to simulate: on-demand (trip and vehicle tokens) or last-mile (delivery consumer and delivery driver tokens)."
            )
        case .consumerURL:
            return SettingEntry(
                .url,
                "Consumer-side token URL template, e.g. https://host/token/consumer/{tripId} (last-mile: https://host/token/delivery_consumer/{trackingId}). With a URL, no embedded server starts."
            )
        case .driverURL:
            return SettingEntry(
                .url,
                "Driver-side token URL template, e.g. https://host/token/driver/{vehicleId} (last-mile: https://host/token/delivery_driver/{deliveryVehicleId})."
            )
        case .tokenKey:
            return SettingEntry(
                .text, note: "detect the shape (jwt, token, access_token, or a bare JWT body)",
                "JSON key (or dotted path, e.g. data.token) holding the token.")
        case .expiryKey:
            return SettingEntry(
                .text, note: "detect (expirationTimestamp, expiration_timestamp_ms, expires_in), else the JWT's exp",
                "JSON key (or dotted path) holding the expiration.")
        case .expiry:
            return SettingEntry(
                .choice(ExpiryMode.allCases.map(\.rawValue)), note: "auto",
                "How to read the expiration: auto, absolute (epoch s), absolute-ms, relative (s from now), jwt (only the token's exp). The token's signed exp always caps it."
            )
        case .jwks:
            return SettingEntry(
                .keySet,
                note: "the embedded server's own key set, or Google's published keys for a service-account issuer",
                "Verify signatures against this JWKS (file or http(s) URL).")
        case .cacert:
            return SettingEntry(
                .file,
                "PEM file with the CA certificate(s) to trust for an https backend, instead of the system's (as curl --cacert)."
            )
        case .proxy:
            return SettingEntry(
                .url,
                note:
                    "https_proxy / HTTPS_PROXY, http_proxy, all_proxy, no_proxy from the environment, as curl reads them",
                "HTTP proxy for every backend request, http://[user:password@]host[:port] (http requests sent to it in absolute form, https through CONNECT); no_proxy still applies."
            )
        case .providerID:
            return SettingEntry(
                .text, "The Google Cloud project (Fleet Engine provider ID) the tokens' issuer must belong to.")
        case .tripID:
            return SettingEntry(.text, default: "trip-0001", "Initial trip ID.")
        case .vehicleID:
            return SettingEntry(.text, default: "vehicle-0001", "Initial vehicle ID.")
        case .trackingID:
            return SettingEntry(.text, default: "tracking-0001", "Initial tracking ID (--solution last-mile).")
        case .deliveryVehicleID:
            return SettingEntry(
                .text, default: "delivery-vehicle-0001", "Initial delivery vehicle ID (--solution last-mile).")
        case .trips:
            return SettingEntry(
                .count(Self.fleetSizes, unit: .items), file: .profileOrDefaults, default: "1",
                "Number of simulated Consumer SDKs, each with its own trip (last-mile: tracking ID) and token.")
        case .vehicles:
            return SettingEntry(
                .count(Self.fleetSizes, unit: .items), file: .profileOrDefaults, default: "1",
                "Number of simulated Driver SDKs, each with its own vehicle (last-mile: delivery vehicle) and token.")
        case .only:
            return SettingEntry(
                .choice(ProviderKind.Role.allCases.map(\.rawValue)),
                "Run and show one side only: consumer or driver (then one backend URL is enough).")
        case .headers:
            return SettingEntry(.headers, "Extra request header NAME:VALUE (repeatable).")
        case .refreshMargin:
            return SettingEntry(
                .seconds(SecondsRange(0, to: longest)), file: .profileOrDefaults, default: "300",
                "Seconds before expiry to fetch a new token (0 waits for expiry, as Google's samples).")
        case .timeout:
            return SettingEntry(
                .seconds(SecondsRange(0, excludingLowest: true, to: longest)), file: .profileOrDefaults, default: "10",
                "Request timeout in seconds.")
        case .lifetime:
            return SettingEntry(
                .count(Self.lifetimes, unit: .seconds), file: .profileOrDefaults, default: "60",
                "Lifetime in seconds of tokens the embedded server mints.")
        case .updateInterval:
            return SettingEntry(
                .seconds(SecondsRange(0.05, to: longest)), file: .profileOrDefaults, default: "5",
                "Seconds between the simulated SDK's location updates (each asks for a token).")
        case .theme:
            return SettingEntry(
                .text, file: .profileOrDefaults,
                "Theme name (a file in Themes/ or a built-in: default, light, high-contrast, mono).")
        case .ramp:
            // A day: a ramp is a morning's app starts, not a month's.
            return SettingEntry(
                .seconds(SecondsRange(0, to: 86_400)), file: .profileOrDefaults, note: "at most 1000 new SDKs a second",
                "Seconds over which the simulated SDKs make their first calls, spread evenly; 0 starts them all at once (a deliberate storm)."
            )
        case .fleetEngine:
            return SettingEntry(
                .url, note: "the embedded server's Fleet Engine emulator, when the embedded server runs",
                "Send the simulated SDKs' calls to this Fleet Engine (e.g. https://fleetengine.googleapis.com) with their tokens; needs --provider-id. Read-only (GetVehicle, GetTrip, GetDeliveryVehicle, GetTaskTrackingInfo) unless --fleet-engine-writes."
            )
        case .fleetEngineInterval:
            return SettingEntry(
                .seconds(SecondsRange(1, to: longest)), file: .profileOrDefaults,
                default: SettingText.number(FleetEngineTarget.defaultInterval),
                "Seconds between one SDK's Fleet Engine calls.")
        case .providerLogic:
            return SettingEntry(
                .choice(ProviderLogic.names), file: .profileOrDefaults, default: ProviderLogic.tokendash.rawValue,
                "Whose token-provider logic the simulated SDKs run: tokendash (single-flight, refresh-ahead, stale answers discarded), swift-sample or objc-sample (faithful ports of Google's samples, flaws included)."
            )
        case .consumerSource:
            return SettingEntry(
                .file,
                "Run your own GMTCAuthorization class (a .swift file importing GoogleRidesharingConsumer, or a .m file, after `tokendash setup objc`) or Android AuthTokenFactory (a .java or .kt file, with a JDK) as the consumer side's provider, built and driven as the Consumer SDK drives it; repeat the flag for a class in several files."
            )
        case .driverSource:
            return SettingEntry(
                .file,
                "Run your own GMTDAuthorization class (a .swift file importing GoogleRidesharingDriver, or a .m file, after `tokendash setup objc`) or Android AuthTokenFactory (a .java or .kt file, with a JDK) as the driver side's provider, built and driven as the Driver SDK drives it; repeat the flag for a class in several files."
            )
        case .completionTimeout:
            return SettingEntry(
                .seconds(SecondsRange(0.1, to: 600)), file: .profileOrDefaults, default: "10",
                "Seconds a source provider's fetchToken may go without calling its completion (completion_missing), or its getToken without returning."
            )
        case .duration:
            return SettingEntry(
                .seconds(SecondsRange(0, excludingLowest: true, to: longest)), file: .none,
                "Stop after this many seconds; exit 0 if every simulated SDK then holds a valid token, else 1.")
        case .idleTimeLimit:
            return SettingEntry(
                .seconds(SecondsRange(0, excludingLowest: true, to: longest)), file: .none,
                "A cast's idle_time_limit: a player shortens any pause longer than this many seconds, as asciinema's --idle-time-limit does; unset keeps every pause."
            )
        case .callers:
            return SettingEntry(
                .count(1...10_000, unit: .items), file: .none, default: "1",
                "Simulated SDK callers per provider asking concurrently at each update.")
        case .churnLimit:
            return SettingEntry(
                .count(1...1000, unit: .items), file: .none, default: "4",
                "Fetches of one ID per token lifetime above which tap calls it churning: its app's provider is not caching."
            )
        case .upstreamKeepalive:
            // nginx's upstream `keepalive 16`, as the operators' page configures it; past 1,000 a
            // backend's own connection limit (often 1,024) would be the tap's to fill.
            return SettingEntry(
                .count(1...1000, unit: .items), file: .none, default: "16",
                "Idle connections to --upstream tap keeps open for reuse, per event loop (one per core), as nginx's upstream keepalive; a busy tap opens more while requests are in flight."
            )
        }
    }
}
