// Returns "" where it has no token.
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;

class ReturnsAnEmptyString implements AuthTokenFactory {
  @Override
  public String getToken(AuthTokenContext context) {
    return "";
  }
}
