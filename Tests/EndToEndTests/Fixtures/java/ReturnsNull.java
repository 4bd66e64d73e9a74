// Returns null: its cache was never filled.
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;

class ReturnsNull implements AuthTokenFactory {
  private String token;  // initially null, and never set

  @Override
  public String getToken(AuthTokenContext context) {
    return token;
  }
}
