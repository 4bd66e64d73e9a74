// Keeps the first vehicle's token after the ID changes, as a cache without the ID in its key does.
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

class ReturnsAnotherVehiclesToken implements AuthTokenFactory {
  @Override
  public String getToken(AuthTokenContext context) {
    long exp = System.currentTimeMillis() / 1000 + 3600;
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    String claims = "{\"iss\":\"s@p.iam.gserviceaccount.com\",\"sub\":\"s@p.iam.gserviceaccount.com\","
        + "\"aud\":\"https://fleetengine.googleapis.com/\",\"iat\":" + (exp - 3600) + ",\"exp\":" + exp
        + ",\"authorization\":{\"vehicleid\":\"vehicle-other\"}}";
    return b64.encodeToString("{\"alg\":\"RS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8)) + "."
        + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + ".c2ln";
  }
}
