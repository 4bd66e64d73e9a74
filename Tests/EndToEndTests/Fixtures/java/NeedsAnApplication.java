// Google's sample apps' factory takes the app's objects in its constructor: there is none without arguments.
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;

class NeedsAnApplication implements AuthTokenFactory {
  private final Object application;

  NeedsAnApplication(Object application) {
    this.application = application;
  }

  @Override
  public String getToken(AuthTokenContext context) {
    return String.valueOf(application);
  }
}
