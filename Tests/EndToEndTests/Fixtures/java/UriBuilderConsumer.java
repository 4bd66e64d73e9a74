// A consumer factory that builds its URL with android.net.Uri.Builder on the placeholder host, as
// the consumer pages' variant does, and keeps its token until a minute before the backend's expiry.
import android.net.Uri;
import com.google.android.libraries.mapsplatform.transportation.consumer.auth.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.consumer.auth.AuthTokenFactory;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.URL;

class UriBuilderConsumer implements AuthTokenFactory {
  private String token;
  private long expiryTimeMs = 0;
  private String tripId;

  @Override
  public String getToken(AuthTokenContext context) {
    String tripId = context.getTripId();
    if (token == null || System.currentTimeMillis() > expiryTimeMs || !tripId.equals(this.tripId)) {
      String url = new Uri.Builder()
          .scheme("https")
          .authority("yourauthserver.example")
          .appendPath("token")
          .appendQueryParameter("tripId", tripId)
          .build()
          .toString();
      try (Reader r = new InputStreamReader(new URL(url).openStream())) {
        com.google.gson.JsonObject obj = com.google.gson.JsonParser.parseReader(r).getAsJsonObject();
        token = obj.get("ServiceToken").getAsString();
        expiryTimeMs = obj.get("TokenExpiryMs").getAsLong() - 60 * 1000;
        this.tripId = tripId;
      } catch (IOException e) {
        throw new RuntimeException("Could not get auth token", e);
      }
    }
    return token;
  }
}
