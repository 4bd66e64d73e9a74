/// The scenarios shipped in the binary, in the format of a scenario file (docs/demo.md,
/// "Scenarios"), so a user can copy one and change it. Timed for the dashboard's defaults: 60 s
/// tokens, a location update every 5 s, a refresh margin of half the lifetime.
public enum BuiltinScenarios {
    public static let sources: [(name: String, yaml: String)] = [
        ("refresh-ahead", refreshAhead), ("id-switch", idSwitch), ("backend-outage", backendOutage),
        ("clock-skew", clockSkew), ("wrong-id", wrongID), ("rate-limited", rateLimited),
        ("revoked-key", revokedKey), ("skewed-phone", skewedPhone), ("sample-race", sampleRace),
    ]

    /// Run it with each `--provider-logic`: the steps are the same, the outcome is the logic's.
    static let sampleRace = """
        name: sample-race
        description: a vehicle switch while a slow answer for the old vehicle is in flight; run it with --provider-logic objc-sample, then tokendash
        ending: >-
          Shown: the old vehicle's slow answer landed after the new vehicle's token. Google's
          Objective-C sample (--provider-logic objc-sample) caches whichever answer arrives last, so it
          served the old vehicle's token for the new vehicle, and Fleet Engine refused the update
          (PERMISSION_DENIED). tokendash's core threw the late answer away (discarded): every update
          was accepted.
        steps:
          - caption: The backend now answers vehicle tokens 6 s late
            fault: latency
            delay: 6s
            on: driver
          - caption: A refresh for the current vehicle goes out... and waits
            refresh: driver
          - until: fetch_started driver
            timeout: 10s
          - after: 1s
            caption: The backend is quick again, and the driver's app switches to the next vehicle
            clear: faults
          - switch: vehicle
          - caption: The new vehicle's token comes at once; the old vehicle's is still on its way
            until: fetched driver
            timeout: 10s
          - after: 7s
            caption: The old vehicle's answer has landed. Which token does the SDK send for the new vehicle?
          - after: 12s
            caption: Watch the Fleet Engine line for the SDK's next update, with the token it was handed
        """

    static let revokedKey = """
        name: revoked-key
        description: Fleet Engine refuses tokens signed with a key deleted from the service account; no rule on the token can tell
        ending: >-
          Shown: the driver's token passed every rule tokendash applies, its signature included
          (checked against the backend's own key set), yet Fleet Engine refused it as UNAUTHENTICATED:
          the key that signed it had been deleted from the service account. Only a call to Fleet Engine
          tells, and the pane said the verdicts disagreed.
        steps:
          - caption: A fresh vehicle token; Fleet Engine takes the driver's location updates
            refresh: driver
          - until: fleet_engine_ok driver
            timeout: 20s
          - after: 3s
            caption: The signing key is deleted from the service account; the backend still signs with it
            fault: revoked-key
            on: driver
          - caption: The driver's next update is refused, though every rule on its token passes
            refresh: driver
          - until: fleet_engine_refused driver
            timeout: 20s
          - after: 8s
            caption: The backend signs with a key the service account holds again
            clear: faults
          - refresh: driver
          - caption: Fleet Engine takes the driver's updates again
            until: fleet_engine_ok driver
            timeout: 30s
        """

    static let skewedPhone = """
        name: skewed-phone
        description: the phone's clock is 15 minutes behind; by its time fresh tokens look issued in the future
        ending: >-
          Shown: with the phone's clock 15 minutes behind, each new token's iat looked 15 minutes in the
          future by the phone's time, past Fleet Engine's 10-minute allowance, and tokendash's rules
          refused it. Fleet Engine, on Google's time, accepted the same token: the verdicts disagreed,
          and the Clock line showed the phone, not the backend, was wrong.
        steps:
          - caption: A fresh vehicle token; the phone's clock is right
            refresh: driver
          - until: fleet_engine_ok driver
            timeout: 20s
          - after: 3s
            caption: The phone's clock falls 15 minutes behind
            device-clock: -15m
          - caption: A new token comes; by the phone's time it was issued 15 minutes from now
            refresh: driver
          - until: rejected driver
            timeout: 20s
          - caption: Fleet Engine, on Google's time, accepts the token the rules refused
            until: verdict_disagrees driver
            timeout: 20s
          - after: 8s
            caption: The phone's clock is put right
            device-clock: 0s
          - refresh: driver
          - until: fetched driver
            timeout: 30s
        """

    static let refreshAhead = """
        name: refresh-ahead
        description: tokens are replaced before they expire, while the old one is still served
        ending: >-
          Shown: the provider fetched each new token ahead of expiry (fetch_started "refresh ahead")
          while the SDK calls kept getting the old token from the cache; no call waited for the backend.
        steps:
          - caption: Tokens now live 60 s; the provider refreshes at most half a lifetime before expiry
            lifetime: 60s
          - caption: A fresh token for the trip, so the countdown starts full
            refresh: consumer
          - until: fetched consumer
            timeout: 30s
          - caption: Location updates are served from the cache while the countdown runs down...
            until: refresh_ahead consumer
            timeout: 90s
          - caption: The refresh went out ahead of expiry; the old token is still served meanwhile
            until: fetched consumer
            timeout: 30s
          - after: 3s
            caption: The new token took over before the old one expired; no gap, no failed call
        """

    static let idSwitch = """
        name: id-switch
        description: a new trip drops the cached token; a late answer for the old trip is thrown away
        ending: >-
          Shown: switching the trip dropped the cached token at once (cache_dropped), and the slow
          answer for the old trip was discarded (fetch_failed, superseded) instead of being cached
          for the new trip.
        steps:
          - caption: The backend now answers trip tokens 6 s late
            fault: latency
            delay: 6s
            on: consumer
          - after: 1s
            caption: A refresh for the current trip goes out... and waits
            refresh: consumer
          - until: fetch_started consumer
            timeout: 10s
          - after: 1s
            caption: Meanwhile the rider's app switches to the next trip
            switch: trip
          - caption: The old trip's answer is thrown away, not cached under the new trip
            until: discarded consumer
            timeout: 15s
          - caption: The new trip's own token arrives (still 6 s late)
            until: fetched consumer
            timeout: 20s
          - caption: Latency fault off
            clear: faults
        """

    static let backendOutage = """
        name: backend-outage
        description: the backend fails with HTTP 500; the providers back off, keep the valid token, recover
        ending: >-
          Shown: while the backend failed, the providers backed off (1 s, 2 s, 4 s... between
          attempts) instead of hammering it, kept serving the valid token until it expired, and got a
          new one on the first attempt after the backend recovered.
        steps:
          - caption: Fresh tokens on both sides (60 s each)
            refresh: both
          - until: fetched driver
            timeout: 20s
          - after: 3s
            caption: The backend starts answering HTTP 500
            fault: http500
          - caption: A refresh fails; the provider backs off before it tries again
            refresh: both
          - until: backing_off driver
            timeout: 20s
          - caption: The valid token is still served from the cache while the backend is down
            until: expired driver
            timeout: 90s
          - after: 5s
            caption: Past expiry there is no token to serve; calls fail until the backend is back
          - caption: The backend recovers
            clear: faults
          - caption: The next attempt after the backoff gets a token again
            until: fetched driver
            timeout: 90s
        """

    static let clockSkew = """
        name: clock-skew
        description: the backend's clock runs ahead; its Date header and iat show the skew
        ending: >-
          Shown: the provider measured the backend's clock from its Date header. Two minutes ahead,
          the token was accepted with a clock-skew warning; fifteen minutes ahead, past Fleet Engine's
          ten-minute allowance for iat, it was refused and the valid token kept.
        steps:
          - caption: The embedded server's clock jumps 2 minutes ahead of this machine's
            server-clock: +2m
          - caption: A new token with iat 2 minutes in the future, accepted, with a clock warning
            refresh: both
          - until: fetched consumer
            timeout: 20s
          - after: 8s
            caption: Now 15 minutes ahead, past Fleet Engine's 10-minute allowance
            server-clock: +15m
          - caption: A refresh brings a token Fleet Engine would refuse; the provider refuses it too
            refresh: both
          - until: rejected consumer
            timeout: 20s
          - after: 8s
            caption: The server's clock is put right
            server-clock: 0s
          - refresh: both
          - until: fetched consumer
            timeout: 30s
        """

    static let wrongID = """
        name: wrong-id
        description: the backend signs a token for another vehicle; the provider refuses it
        ending: >-
          Shown: a token whose vehicleid claim names another vehicle was refused (fetch_failed) and
          not cached; the valid token stayed in use. Put to Fleet Engine to check, the refused token
          got PERMISSION_DENIED there too: the rules and Fleet Engine agreed.
        steps:
          - caption: The backend now mints vehicle tokens for the wrong vehicle ID ("not-...")
            fault: wrong-id
            on: driver
          - caption: A refresh brings one
            refresh: driver
          - caption: Refused, because the token's vehicleid claim does not name this vehicle
            until: rejected driver
            timeout: 20s
          - caption: Fleet Engine refuses it too (PERMISSION_DENIED), naming the mismatch
            until: fleet_engine_refused driver
            timeout: 20s
          - after: 5s
            caption: The backend is fixed
            clear: faults
          - refresh: driver
          - caption: A token for the right vehicle is accepted again
            until: fetched driver
            timeout: 30s
        """

    static let rateLimited = """
        name: rate-limited
        description: the backend answers HTTP 429 with Retry-After; the provider waits as long as asked
        ending: >-
          Shown: the provider obeyed the backend's Retry-After: 30 and made no request for 30 s, far
          longer than its own 1 s backoff, then fetched a token once the backend allowed it.
        steps:
          - caption: The backend now answers trip tokens with HTTP 429, Retry-After 30 s
            fault: rate-limited
            on: consumer
          - caption: A refresh asks anyway
            refresh: consumer
          - caption: HTTP 429; the provider waits the 30 s the backend asked for
            until: backing_off consumer
            timeout: 20s
          - after: 5s
            caption: The backend stops limiting; the provider still waits out the Retry-After
            clear: faults
          - caption: The first request after the wait gets a token
            until: fetched consumer
            timeout: 60s
        """
}
