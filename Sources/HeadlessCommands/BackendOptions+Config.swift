import ArgumentParser
import ConfigFile
import ProviderVocabulary
import Settings

/// How a config file's settings land on the flags: a flag given wins; otherwise the profile's
/// value, else `defaults`', fills it in; otherwise the built-in default stays. `config check`
/// lists every setting this way, with where its value came from.
extension BackendOptions {
    package struct ConfigField {
        package let setting: Setting
        package let isGiven: (BackendOptions) -> Bool
        package let fill: (inout BackendOptions, String) -> Void
        /// The value in effect as text; nil when the setting is unset.
        package let shown: (BackendOptions) -> String?
    }

    private static func field<T: ExpressibleByArgument>(
        _ setting: Setting, _ given: WritableKeyPath<BackendOptions, T?>,
        effective: KeyPath<BackendOptions, T>? = nil
    ) -> ConfigField {
        ConfigField(
            setting: setting,
            isGiven: { $0[keyPath: given] != nil },
            // The file's values were checked against the same rules when it was read.
            fill: { options, text in if options[keyPath: given] == nil { options[keyPath: given] = T(argument: text) }
            },
            shown: { options in
                if let effective { return options[keyPath: effective].defaultValueDescription }
                return options[keyPath: given]?.defaultValueDescription
            })
    }

    /// Every scalar setting a profile can give, with the flag it stands for.
    package static var configFields: [ConfigField] {
        [
            field(.solution, \.backendFlags.givenSolution, effective: \.solution),
            field(.consumerURL, \.backendFlags.consumerURL), field(.driverURL, \.backendFlags.driverURL),
            field(.tokenKey, \.backendFlags.tokenKey), field(.expiryKey, \.backendFlags.expiryKey),
            field(.expiry, \.backendFlags.expiry),
            field(.jwks, \.backendFlags.jwks), field(.cacert, \.transport.caCertificates),
            field(.proxy, \.transport.proxy),
            field(.providerID, \.backendFlags.providerID),
            field(.tripID, \.sdks.givenTripID, effective: \.tripID),
            field(.vehicleID, \.sdks.givenVehicleID, effective: \.vehicleID),
            field(.trackingID, \.sdks.givenTrackingID, effective: \.trackingID),
            field(.deliveryVehicleID, \.sdks.givenDeliveryVehicleID, effective: \.deliveryVehicleID),
            field(.trips, \.fleet.givenTrips, effective: \.trips),
            field(.vehicles, \.fleet.givenVehicles, effective: \.vehicles),
            field(.only, \.sdks.only),
            field(.refreshMargin, \.sdks.givenRefreshMargin, effective: \.refreshMargin),
            field(.timeout, \.backendFlags.givenTimeout, effective: \.timeout),
            field(.lifetime, \.backendFlags.givenLifetime, effective: \.lifetime),
            field(.updateInterval, \.sdks.givenUpdateInterval, effective: \.updateInterval),
            field(.ramp, \.fleet.givenRamp),
            field(.fleetEngine, \.fleetEngine.fleetEngineURL),
            field(.fleetEngineInterval, \.fleetEngine.givenFleetEngineInterval, effective: \.fleetEngineInterval),
            field(.providerLogic, \.sdks.givenProviderLogic, effective: \.providerLogic),
            field(.consumerSource, \.ownProvider.consumerSource), field(.driverSource, \.ownProvider.driverSource),
            field(.completionTimeout, \.ownProvider.givenCompletionTimeout, effective: \.completionTimeout),
        ]
    }

    /// These options with `config`'s values where no flag was given. Headers add up: the
    /// profile's first, and a `--header` of the same name replaces the profile's.
    package func filled(from config: ResolvedConfig) -> BackendOptions {
        var options = self
        for field in Self.configFields {
            if let text = config.text(field.setting) { field.fill(&options, text) }
        }
        options.backendFlags.headers =
            configHeaders(config).map { "\($0.name):\($0.value)" } + backendFlags.headers
        // `--no-proxy` wins over a profile's `proxy:` as any flag wins over the file.
        if transport.noProxy { options.transport.proxy = transport.proxy }
        return options
    }

    /// The profile's headers not replaced by a `--header` flag.
    package func configHeaders(_ config: ResolvedConfig) -> [ConfigHeader] {
        guard case .headers(let profile)? = config[.headers]?.value else { return [] }
        let flagged = Set(backendFlags.headers.compactMap { HTTPHeader(parsing: $0)?.name.lowercased() })
        return profile.filter { !flagged.contains($0.name.lowercased()) }
    }
}
