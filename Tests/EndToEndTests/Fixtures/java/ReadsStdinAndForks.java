// Reads System.in in its constructor, and starts a grandchild that ignores SIGTERM, as a class
// that launches a daemon would, and says its process ID: nothing of it may outlive the host.
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext;
import com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext.AuthTokenFactory;
import java.io.IOException;

class ReadsStdinAndForks implements AuthTokenFactory {
  private final int firstByte;

  ReadsStdinAndForks() throws IOException {
    firstByte = System.in.read();
    Process sleeper = new ProcessBuilder("/bin/sh", "-c", "trap '' TERM; exec sleep 300").start();
    System.out.println("stdin gave " + firstByte);
    System.out.println("grandchild " + sleeper.pid());
  }

  @Override
  public String getToken(AuthTokenContext context) {
    return "stdin-gave-" + firstByte;
  }
}
