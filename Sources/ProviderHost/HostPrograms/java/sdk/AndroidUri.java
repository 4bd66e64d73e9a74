// tokendash's stand-in for android.net.Uri, as far as Google's Android token samples use it
// (Uri.Builder's scheme, authority, appendPath, appendQueryParameter, build, and toString):
// written to android/net/Uri.java when a factory is built. Paths and query values are encoded as
// Android's Uri.encode does (RFC 3986 unreserved characters kept, UTF-8 otherwise).
package android.net;

import java.nio.charset.StandardCharsets;

public final class Uri {
    private final String text;

    private Uri(String text) {
        this.text = text;
    }

    public static Uri parse(String text) {
        return new Uri(text);
    }

    public static String encode(String text) {
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-_.~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append(String.format("%%%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return text;
    }

    public static final class Builder {
        private String scheme = "";
        private String authority = "";
        private final StringBuilder path = new StringBuilder();
        private final StringBuilder query = new StringBuilder();

        public Builder scheme(String scheme) {
            this.scheme = scheme;
            return this;
        }

        // Kept as given, as Android keeps an authority set with this method.
        public Builder authority(String authority) {
            this.authority = authority;
            return this;
        }

        public Builder appendPath(String segment) {
            path.append('/').append(encode(segment));
            return this;
        }

        public Builder appendQueryParameter(String key, String value) {
            query.append(query.length() == 0 ? '?' : '&').append(encode(key)).append('=').append(encode(value));
            return this;
        }

        public Uri build() {
            return new Uri((scheme.isEmpty() ? "" : scheme + "://") + authority + path + query);
        }
    }
}
