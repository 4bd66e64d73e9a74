// Sleeps in getToken far past any deadline: no location update is sent while it does.
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;

class BlocksTheUpdateThread implements AuthTokenFactory {
  @Override
  public String getToken(AuthTokenContext context) {
    try {
      Thread.sleep(1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "never";
  }
}
