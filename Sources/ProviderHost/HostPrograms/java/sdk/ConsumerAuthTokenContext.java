// tokendash's stand-in for the Consumer SDK's AuthTokenContext, only the token provider's
// surface: written to com/google/android/libraries/mapsplatform/transportation/consumer/auth/
// AuthTokenContext.java when a consumer factory is built, as Google's consumer sample imports it
// (googlemaps/android-on-demand-rides-deliveries-samples). The context gives the trip's ID.
package com.google.android.libraries.mapsplatform.transportation.consumer.auth;

public final class AuthTokenContext {
    private final String tripId;

    // Public only so tokendash's host can make one; an app's code is handed its context by the SDK.
    public AuthTokenContext(String tripId) {
        this.tripId = tripId;
    }

    public String getTripId() {
        return tripId;
    }
}
