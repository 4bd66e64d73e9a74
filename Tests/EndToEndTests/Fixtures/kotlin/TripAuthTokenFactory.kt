// A driver factory in Kotlin as Google's Kotlin sample writes one (property access, `!!`,
// `internal`), fetching as the Java skeleton does: from yourauthserver.example, Gson-parsed.
package com.example.kotlindriver

import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext
import java.io.InputStreamReader
import java.net.URL

internal class TripAuthTokenFactory : AuthTokenContext.AuthTokenFactory {
  private var token: String? = null
  private var expiryTimeMs: Long = 0
  private var vehicleId: String? = null

  override fun getToken(context: AuthTokenContext): String {
    val vehicleId = context.vehicleId!!
    if (System.currentTimeMillis() > expiryTimeMs || vehicleId != this.vehicleId) {
      fetchNewToken(vehicleId)
    }
    return token!!
  }

  private fun fetchNewToken(vehicleId: String) {
    val url = "https://yourauthserver.example/token/$vehicleId"
    InputStreamReader(URL(url).openStream()).use { reader ->
      val obj = com.google.gson.JsonParser.parseReader(reader).asJsonObject
      token = obj.get("VehicleServiceToken").asString
      // The expiry time could be an hour from now, but just to try and avoid
      // passing expired tokens, we subtract 10 minutes from that time.
      val tenMinutesInMillis = (10 * 60 * 1000).toLong()
      expiryTimeMs = obj.get("TokenExpiryMs").asLong - tenMinutesInMillis
      this.vehicleId = vehicleId
    }
  }
}
