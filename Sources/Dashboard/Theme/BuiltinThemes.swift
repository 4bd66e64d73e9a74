/// The four shipped themes (Theme/Themes/*.yaml), as the files read: SwiftPM embeds them in the
/// binary (`.embedInCode`), so `tokendash` has them wherever it runs and the .deb ships no YAML.
enum BuiltinThemes {
    static let sources: [String: String] = [
        "default": text(PackageResources.default_yaml),
        "light": text(PackageResources.light_yaml),
        "high-contrast": text(PackageResources.high_contrast_yaml),
        "mono": text(PackageResources.mono_yaml),
    ]

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
