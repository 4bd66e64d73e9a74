// tokendash's provider host for a JVM: runs the customer's AuthTokenFactory as the Android SDKs
// run it.
//
// One instance of the class for the whole run, made with its constructor that takes no
// arguments. Each request line is one getToken(context) call, made on one thread, in order: the
// Driver SDK calls it "on a thread whose only responsibility is to send location updates", so a
// call that blocks holds back the ones after it, as on a phone. What getToken returns, or throws,
// is one completion line back, then a return line (the protocol is in docs/your-provider.md; it is
// the Swift and Objective-C hosts' own). Requests come in on descriptor 3 and messages go out on
// 4, descriptors of the protocol's own: System.in is /dev/null and System.out and System.err are
// the class's prints, so nothing the class reads is a request and nothing it prints is a message.
//
// Arguments: the class's qualified name, then "driver" or "consumer", then the class's file
// names (a thrown exception is placed at its first frame in one of them). The JVM's own proxy
// settings are made from http_proxy, so the class's HTTP goes through tokendash's loopback proxy,
// loopback included, as libcurl does for the other hosts.
//
// SwiftPM embeds this file (`.embedInCode`); the JVM host's build (JavaHostBuild) compiles it
// with the stand-in SDK classes beside it and the customer's files.

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;

public final class TokendashHost {
    private static OutputStream channel;
    private static final Object channelLock = new Object();
    private static Set<String> fileNames = new HashSet<>();

    /** One call asked for: its number, the SDK's current ID and, for a last-mile driver, the task. */
    private static final class Request {
        final long call;
        final String id;

        Request(long call, String id) {
            this.call = call;
            this.id = id;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("tokendash's JVM host: usage: TokendashHost CLASS driver|consumer [FILE...]");
            System.exit(2);
        }
        fileNames = new HashSet<>(Arrays.asList(args).subList(2, args.length));
        boolean driver = args[1].equals("driver");
        proxyFromEnvironment();
        InputStream requests = new FileInputStream("/proc/self/fd/3");
        channel = new FileOutputStream("/proc/self/fd/4");
        Object factory = make(args[0]);
        LinkedBlockingQueue<Request> calls = new LinkedBlockingQueue<>();
        Thread updater = new Thread(() -> serve(calls, factory, driver), "location-updates");
        updater.setDaemon(true);
        updater.start();
        send("{\"t\":\"ready\"}\n");
        readRequests(requests, calls);
        // tokendash closed the requests: the run is over, whatever the class's threads are doing.
        System.exit(0);
    }

    /** The class's one instance, or the host ends saying why in one line, as an uncaught exception. */
    private static Object make(String name) {
        try {
            Class<?> type = Class.forName(name);
            Constructor<?> constructor = type.getDeclaredConstructor();
            constructor.setAccessible(true);
            return constructor.newInstance();
        } catch (NoSuchMethodException e) {
            System.err.println(
                "Uncaught exception: " + simpleName(name) + " has no constructor without arguments,"
                    + " and tokendash makes the one instance the app would hold with it");
        } catch (InvocationTargetException e) {
            System.err.println("Uncaught exception in the constructor: " + describe(e.getCause()));
        } catch (Throwable e) {
            System.err.println("Uncaught exception making " + simpleName(name) + ": " + describe(e));
        }
        System.exit(1);
        return null;
    }

    private static String simpleName(String name) {
        return name.substring(name.lastIndexOf('.') + 1);
    }

    /** Every getToken call, one after another on this one thread, as the SDK makes them. */
    private static void serve(LinkedBlockingQueue<Request> calls, Object factory, boolean driver) {
        StringBuilder line = new StringBuilder(1024);
        while (true) {
            Request request;
            try {
                request = calls.take();
            } catch (InterruptedException e) {
                continue;
            }
            line.setLength(0);
            line.append("{\"t\":\"completion\",\"call\":").append(request.call);
            try {
                String token = driver ? driverToken(factory, request.id) : consumerToken(factory, request.id);
                // null is said by leaving the token out; an empty string is sent as one.
                if (token != null) {
                    line.append(",\"token\":");
                    quote(token, line);
                }
            } catch (Throwable thrown) {
                line.append(",\"error\":");
                quote(describe(thrown), line);
            }
            line.append("}\n{\"t\":\"returned\",\"call\":").append(request.call).append("}\n");
            send(line.toString());
        }
    }

    private static String driverToken(Object factory, String id) {
        return ((com.google.android.libraries.mapsplatform.transportation.driver.api.base.data.AuthTokenContext
                .AuthTokenFactory) factory)
            .getToken(new com.google.android.libraries.mapsplatform.transportation.driver.api.base.data
                .AuthTokenContext(id));
    }

    private static String consumerToken(Object factory, String id) {
        return ((com.google.android.libraries.mapsplatform.transportation.consumer.auth.AuthTokenFactory) factory)
            .getToken(new com.google.android.libraries.mapsplatform.transportation.consumer.auth.AuthTokenContext(id));
    }

    /**
     * An exception as the pane says it: its class and message, where it was thrown in the
     * customer's files, and the causes under it ("java.lang.RuntimeException: Could not get auth
     * token at JsonAuthTokenFactory.java:31, caused by java.io.FileNotFoundException: …").
     */
    static String describe(Throwable thrown) {
        StringBuilder text = new StringBuilder();
        Set<Throwable> seen = new HashSet<>();
        for (Throwable t = thrown; t != null && seen.add(t) && seen.size() <= 4; t = t.getCause()) {
            if (t != thrown) text.append(", caused by ");
            text.append(t.getClass().getName());
            if (t.getMessage() != null) text.append(": ").append(t.getMessage());
            for (StackTraceElement frame : t.getStackTrace()) {
                if (frame.getFileName() != null && fileNames.contains(frame.getFileName())) {
                    text.append(" at ").append(frame.getFileName()).append(':').append(frame.getLineNumber());
                    break;
                }
            }
        }
        return text.toString();
    }

    /** Reads request lines until tokendash closes the descriptor; each is queued for the updater thread. */
    private static void readRequests(InputStream in, LinkedBlockingQueue<Request> calls) throws IOException {
        byte[] buffer = new byte[1 << 16];
        int filled = 0;
        while (true) {
            // A line longer than the buffer is not one tokendash writes: it is dropped.
            if (filled == buffer.length) filled = 0;
            int count = in.read(buffer, filled, buffer.length - filled);
            if (count <= 0) return;
            filled += count;
            int start = 0;
            for (int i = 0; i < filled; i++) {
                if (buffer[i] != '\n') continue;
                String line = new String(buffer, start, i - start, StandardCharsets.UTF_8);
                start = i + 1;
                String call = field("call", line);
                String id = field("id", line);
                if (call == null || id == null) continue;
                try {
                    calls.add(new Request(Long.parseLong(call), id));
                } catch (NumberFormatException e) {
                    // Not a line tokendash writes: dropped, not trusted.
                }
            }
            System.arraycopy(buffer, start, buffer, 0, filled - start);
            filled -= start;
        }
    }

    /** The value of "key": in a request line, which tokendash writes itself: a number or a string. */
    static String field(String key, String line) {
        String pattern = "\"" + key + "\":";
        int at = line.indexOf(pattern);
        if (at < 0) return null;
        int p = at + pattern.length();
        if (p < line.length() && line.charAt(p) != '"') {
            int from = p;
            while (p < line.length() && Character.isDigit(line.charAt(p))) p++;
            return line.substring(from, p);
        }
        StringBuilder value = new StringBuilder();
        for (p = p + 1; p < line.length(); p++) {
            char c = line.charAt(p);
            if (c == '\\' && p + 1 < line.length()) {
                value.append(line.charAt(++p));
            } else if (c == '"') {
                return value.toString();
            } else {
                value.append(c);
            }
        }
        return null;
    }

    /** text as a JSON string. */
    static void quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    /** Lines out whole, one write each, whichever thread sends them. */
    private static void send(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        synchronized (channelLock) {
            try {
                channel.write(bytes);
                channel.flush();
            } catch (IOException e) {
                // tokendash is gone: nothing is left to answer.
                Runtime.getRuntime().halt(0);
            }
        }
    }

    /**
     * http_proxy as the JVM's own settings, for http and https alike, with no host left out: the
     * JVM leaves loopback out by default, and the embedded server is on loopback.
     */
    private static void proxyFromEnvironment() {
        String proxy = System.getenv("http_proxy");
        if (proxy == null || proxy.isEmpty()) return;
        try {
            URI uri = new URI(proxy);
            if (uri.getHost() == null || uri.getPort() < 0) return;
            for (String scheme : new String[] {"http", "https"}) {
                System.setProperty(scheme + ".proxyHost", uri.getHost());
                System.setProperty(scheme + ".proxyPort", Integer.toString(uri.getPort()));
            }
            System.setProperty("http.nonProxyHosts", "");
        } catch (Exception e) {
            System.err.println("tokendash's JVM host: http_proxy is not a URL: " + e.getMessage());
        }
    }
}
