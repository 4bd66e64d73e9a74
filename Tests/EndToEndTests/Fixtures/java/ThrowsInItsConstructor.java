// Fails to make itself: the host says so and ends.
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;

class ThrowsInItsConstructor implements AuthTokenFactory {
  ThrowsInItsConstructor() {
    throw new IllegalStateException("no settings yet");
  }

  @Override
  public String getToken(AuthTokenContext context) {
    return "never";
  }
}
