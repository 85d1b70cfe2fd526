package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends a list of HTTP calls through the JDK's two clients, {@link HttpClient} (NIO selector based)
 * and {@link HttpURLConnection} (blocking {@code java.net.Socket}), checks every answer and
 * summarises them in a line that is equal from run to run.
 */
final class HttpTraffic {

    /** One request and the answer it must get. */
    record Call(String method, String path, byte[] body, int expectStatus, byte[] expectBody) {
        static Call get(String path, int expectStatus, byte[] expectBody) {
            return new Call("GET", path, null, expectStatus, expectBody);
        }

        static Call post(String path, byte[] body, int expectStatus, byte[] expectBody) {
            return new Call("POST", path, body, expectStatus, expectBody);
        }
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private HttpTraffic() {
    }

    /** Sends {@code calls} with {@code parallel} requests in flight at a time, over HTTP/1.1 keep-alive. */
    static String viaHttpClient(int port, List<Call> calls, int parallel) throws Exception {
        // HTTP/1.1 explicitly: the default would try an h2c upgrade, which WireMock's Jetty may accept
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(TIMEOUT)
                .build();
        List<HttpResponse<byte[]>> responses = new ArrayList<>();
        for (int from = 0; from < calls.size(); from += parallel) {
            List<CompletableFuture<HttpResponse<byte[]>>> batch = new ArrayList<>();
            for (Call call : calls.subList(from, Math.min(from + parallel, calls.size()))) {
                HttpRequest request = HttpRequest.newBuilder(uri(port, call))
                        .timeout(TIMEOUT)
                        .method(call.method(), call.body() == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(call.body()))
                        .build();
                batch.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()));
            }
            CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            for (CompletableFuture<HttpResponse<byte[]>> response : batch) {
                responses.add(response.join());
            }
        }
        Tally tally = new Tally();
        for (int i = 0; i < calls.size(); i++) {
            tally.add(calls.get(i), responses.get(i).statusCode(), responses.get(i).body());
        }
        return tally.toString();
    }

    /** Sends {@code calls} one after the other; reading each body to its end keeps the connection alive. */
    static String viaUrlConnection(int port, List<Call> calls) throws IOException {
        Tally tally = new Tally();
        for (Call call : calls) {
            HttpURLConnection connection = (HttpURLConnection) uri(port, call).toURL().openConnection();
            connection.setConnectTimeout((int) TIMEOUT.toMillis());
            connection.setReadTimeout((int) TIMEOUT.toMillis());
            connection.setRequestMethod(call.method());
            if (call.body() != null) {
                connection.setDoOutput(true);
                connection.setFixedLengthStreamingMode(call.body().length);
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(call.body());
                }
            }
            int status = connection.getResponseCode();
            byte[] body;
            try (InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
                body = in == null ? new byte[0] : in.readAllBytes();
            }
            tally.add(call, status, body);
        }
        return tally.toString();
    }

    private static URI uri(int port, Call call) {
        return URI.create("http://127.0.0.1:" + port + call.path());
    }

    /** Checks each answer and folds it into status counts and one digest over all answers, in order. */
    private static final class Tally {
        private final Map<Integer, Integer> statuses = new TreeMap<>();
        private final MessageDigest digest = DemoSupport.sha256();
        private int count;

        void add(Call call, int status, byte[] body) {
            if (status != call.expectStatus() || !Arrays.equals(body, call.expectBody())) {
                throw new IllegalStateException(call.method() + " " + call.path() + " answered " + status
                        + " with " + body.length + " bytes; expected " + call.expectStatus()
                        + " with " + call.expectBody().length + " bytes");
            }
            statuses.merge(status, 1, Integer::sum);
            digest.update((count++ + " " + status + " " + DemoSupport.sha256(body) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String toString() {
            return "n=" + count + " status=" + statuses + " sha256=" + DemoSupport.hex(digest).substring(0, 16);
        }
    }
}
