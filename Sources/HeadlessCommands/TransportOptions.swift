import ArgumentParser
import Settings

/// How a backend is reached over the network: which certificates to trust and which proxy to go
/// through. One declaration for the dashboard, `watch` and `tap` (whose backend is `--upstream`),
/// so the three spell, describe and check these flags alike.
package struct TransportOptions: ParsableArguments {
    package init() {}

    @Option(name: .customLong(Setting.cacert.rawValue), help: Setting.cacert.argumentHelp)
    package var caCertificates: String?

    @Flag(
        name: .customLong("insecure"),
        help:
            "Do not verify the backend's TLS certificate (tap: --upstream's). Shown in red in the dashboard's header; watch adds \"insecure\":true to every line."
    )
    package var insecure = false

    @Option(name: .customLong(Setting.proxy.rawValue), help: Setting.proxy.argumentHelp)
    package var proxy: String?

    @Flag(
        name: .customLong("proxy-tunnel"),
        help:
            "Ask the proxy for a CONNECT tunnel for http backends too (tap: an http --upstream), as curl --proxytunnel (by default an http request goes to the proxy in absolute form)."
    )
    package var proxyTunnel = false

    @Flag(
        name: .customLong("no-proxy"),
        help: "Reach every backend (tap: --upstream) directly, whatever the proxy variables say.")
    package var noProxy = false
}
