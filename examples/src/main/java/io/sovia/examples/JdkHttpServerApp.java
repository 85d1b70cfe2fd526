package io.sovia.examples;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The JDK's own {@code com.sun.net.httpserver.HttpServer} answering 60 calls from the JDK
 * {@code HttpClient} (4 in flight) and 60 from {@code HttpURLConnection}, all over keep-alive
 * connections: a fixed-length reply, a chunked 256 KiB reply and an echo of a POST body.
 * Usage: {@code JdkHttpServerApp [both | server | client <port>]}.
 */
public final class JdkHttpServerApp {

    private static final byte[] HELLO = "hello\n".getBytes(UTF_8);
    private static final byte[] DATA = DemoSupport.pseudoRandomBytes(3, 256 * 1024);
    private static final byte[] POSTED = DemoSupport.pseudoRandomBytes(4, 10_000);
    private static final int CALLS = 60;

    private JdkHttpServerApp() {
    }

    public static void main(String[] args) {
        DemoSupport.run(args, JdkHttpServerApp::startServer, JdkHttpServerApp::runClients);
    }

    private static DemoSupport.Server startServer() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        ExecutorService executor = Executors.newFixedThreadPool(4);
        server.setExecutor(executor);
        server.createContext("/hello", exchange -> reply(exchange, HELLO, HELLO.length));
        server.createContext("/data", exchange -> reply(exchange, DATA, 0)); // 0: chunked encoding
        server.createContext("/echo", exchange -> {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            reply(exchange, body, body.length);
        });
        server.start();
        return new DemoSupport.Server(server.getAddress().getPort(), () -> {
            server.stop(0);
            executor.shutdownNow();
        });
    }

    private static void reply(HttpExchange exchange, byte[] body, long declaredLength) throws IOException {
        exchange.sendResponseHeaders(200, declaredLength);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static String runClients(int port) throws Exception {
        List<HttpTraffic.Call> calls = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            calls.add(switch (i % 3) {
                case 0 -> HttpTraffic.Call.get("/hello", 200, HELLO);
                case 1 -> HttpTraffic.Call.get("/data", 200, DATA);
                default -> HttpTraffic.Call.post("/echo", POSTED, 200, POSTED);
            });
        }
        return "httpclient[" + HttpTraffic.viaHttpClient(port, calls, 4) + "]"
                + " urlconnection[" + HttpTraffic.viaUrlConnection(port, calls) + "]";
    }
}
