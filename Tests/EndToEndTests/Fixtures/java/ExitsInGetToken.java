// Calls System.exit(3) on its first call: the host ends, and the next call starts another.
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;

class ExitsInGetToken implements AuthTokenFactory {
  @Override
  public String getToken(AuthTokenContext context) {
    System.out.println("giving up");
    System.exit(3);
    return null;
  }
}
