// tokendash's stand-in for the Driver SDK's AuthTokenContext, only the token provider's surface:
// written to com/google/android/libraries/mapsplatform/transportation/driver/api/base/data/
// AuthTokenContext.java when a driver factory is built, so `import ….AuthTokenContext;` and
// `import ….AuthTokenContext.AuthTokenFactory;` compile as Google's samples write them
// (googlemaps/android-on-demand-rides-deliveries-samples, TripAuthTokenFactory.java). The context
// gives the vehicle's ID (the scheduled Driver SDK's: the delivery vehicle's); the factory's one
// method is called on the SDK's location-update thread ("Blocking is OK, but just know that no
// location updates can occur until this method returns", Get authorization tokens, Driver SDK
// for Android).
package com.google.android.libraries.mapsplatform.transportation.driver.api.base.data;

public final class AuthTokenContext {
    private final String vehicleId;

    // Public only so tokendash's host can make one; an app's code is handed its context by the SDK.
    public AuthTokenContext(String vehicleId) {
        this.vehicleId = vehicleId;
    }

    public String getVehicleId() {
        return vehicleId;
    }

    public interface AuthTokenFactory {
        String getToken(AuthTokenContext context);
    }
}
