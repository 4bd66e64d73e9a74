import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext

// Reads a property the context does not have: kotlinc's error, at its line and column.
class DoesNotCompile : AuthTokenContext.AuthTokenFactory {
  override fun getToken(context: AuthTokenContext): String {
    return context.tripId
  }
}
