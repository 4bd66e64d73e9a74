// The factory nested in the app's own class, as an Application subclass often holds it: the JVM
// knows it as com.example.app.FleetApp$Factory.
package com.example.app;

import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;

public class FleetApp {
  private static final class Factory implements AuthTokenContext.AuthTokenFactory {
    @Override
    public String getToken(AuthTokenContext context) {
      return "made-as-nested";
    }
  }
}
