// Throws as Google's skeleton does when its backend cannot be read: a RuntimeException around an IOException.
package com.example.fleet;

import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;
import java.io.IOException;

class ThrowsFromGetToken implements AuthTokenFactory {
  @Override
  public String getToken(AuthTokenContext context) {
    try {
      throw new IOException("backend said 503");
    } catch (IOException e) {
      throw new RuntimeException("Could not get auth token", e);
    }
  }
}
