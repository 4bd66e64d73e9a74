// Returns the same token, whose exp passed an hour ago, for the right vehicle, at every call (its
// signature is not checked).
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

class ReturnsAnExpiredToken implements AuthTokenFactory {
  private String token;  // kept, as a cache would: the same expired token every call

  @Override
  public String getToken(AuthTokenContext context) {
    if (token == null) {
      token = ForgedToken.forVehicle(context.getVehicleId(), System.currentTimeMillis() / 1000 - 3600);
    }
    return token;
  }
}

final class ForgedToken {
  static String forVehicle(String vehicleId, long exp) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"k\"}";
    String claims = "{\"iss\":\"s@p.iam.gserviceaccount.com\",\"sub\":\"s@p.iam.gserviceaccount.com\","
        + "\"aud\":\"https://fleetengine.googleapis.com/\",\"iat\":" + (exp - 3600) + ",\"exp\":" + exp
        + ",\"authorization\":{\"vehicleid\":\"" + vehicleId + "\"}}";
    return b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
        + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + ".c2ln";
  }
}
