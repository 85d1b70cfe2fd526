package io.sovia.examples;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static java.nio.charset.StandardCharsets.UTF_8;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.util.ArrayList;
import java.util.List;

/**
 * A WireMock server (Jetty) with four stubs, one of them a 2 MB body, called 100 times by the JDK
 * {@code HttpClient} (8 requests in flight) and 100 times by {@code HttpURLConnection}.
 * Usage: {@code WireMockApp [both | server | client <port>]}.
 */
public final class WireMockApp {

    private static final byte[] HELLO = "Hello from WireMock\n".getBytes(UTF_8);
    private static final byte[] BIG = DemoSupport.pseudoRandomBytes(2, 2_000_000);
    private static final byte[] ORDER = "{\"item\":\"widget\",\"count\":3}".getBytes(UTF_8);
    private static final byte[] CREATED = "{\"id\":42,\"item\":\"widget\"}".getBytes(UTF_8);
    private static final byte[] MISSING = "no such thing\n".getBytes(UTF_8);
    private static final int CALLS = 100;

    private WireMockApp() {
    }

    public static void main(String[] args) {
        DemoSupport.run(args, WireMockApp::startServer, WireMockApp::runClients);
    }

    private static DemoSupport.Server startServer() {
        // one acceptor thread: Jetty warns when there are more than cores, and 2 cores are common in CI
        WireMockServer server = new WireMockServer(
                options().bindAddress("127.0.0.1").dynamicPort().jettyAcceptors(1));
        server.start();
        server.stubFor(get(urlEqualTo("/hello")).willReturn(aResponse().withStatus(200).withBody(HELLO)));
        server.stubFor(get(urlEqualTo("/big")).willReturn(aResponse().withStatus(200).withBody(BIG)));
        server.stubFor(post(urlEqualTo("/orders")).withRequestBody(containing("widget"))
                .willReturn(aResponse().withStatus(201).withBody(CREATED)));
        // an explicit 404: WireMock's own "not matched" page echoes the request, Host port included
        server.stubFor(get(urlEqualTo("/missing")).willReturn(aResponse().withStatus(404).withBody(MISSING)));
        return new DemoSupport.Server(server.port(), server::stop);
    }

    private static String runClients(int port) throws Exception {
        List<HttpTraffic.Call> calls = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            calls.add(switch (i % 4) {
                case 0 -> HttpTraffic.Call.get("/hello", 200, HELLO);
                case 1 -> HttpTraffic.Call.get("/big", 200, BIG);
                case 2 -> HttpTraffic.Call.post("/orders", ORDER, 201, CREATED);
                default -> HttpTraffic.Call.get("/missing", 404, MISSING);
            });
        }
        return "httpclient[" + HttpTraffic.viaHttpClient(port, calls, 8) + "]"
                + " urlconnection[" + HttpTraffic.viaUrlConnection(port, calls) + "]";
    }
}
