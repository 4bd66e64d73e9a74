// tokendash's stand-in for the Consumer SDK's AuthTokenFactory: written to
// com/google/android/libraries/mapsplatform/transportation/consumer/auth/AuthTokenFactory.java when
// a consumer factory is built (the consumer's is an interface of its own, not nested in the context).
package com.google.android.libraries.mapsplatform.transportation.consumer.auth;

public interface AuthTokenFactory {
    String getToken(AuthTokenContext context);
}
