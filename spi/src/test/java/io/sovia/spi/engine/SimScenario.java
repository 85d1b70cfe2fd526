package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import java.util.Random;

/**
 * A client and a server session over a {@link SimNetwork}, everything drawn from one seed: link
 * impairments, frame size, buffer sizes (small ones sometimes, so flow control bites), ack and Nagle
 * timers, retransmission window, noDelay, stream volumes and write/read sizes.
 */
final class SimScenario {
    final long seed;
    final SimNetwork net;
    final SessionConfig clientConfig;
    final SessionConfig serverConfig;
    final Session client;
    final Session server;
    final SimApp a;
    final SimApp b;
    final SimDriver driver;

    private SimScenario(long seed, SimNetwork net, SessionConfig cc, SessionConfig sc, String label) {
        this.seed = seed;
        this.net = net;
        this.clientConfig = cc;
        this.serverConfig = sc;
        this.client = new Session(net.a, cc, net.clock());
        this.server = new Session(net.b, sc, net.clock());
        this.a = new SimApp("client", client, net.random);
        this.b = new SimApp("server", server, net.random);
        this.driver = new SimDriver(label + " " + net.a.maxFrameLength() + "B frames, client " + cc
                + ", server " + sc, net, a, b);
        if (!net.reliable) {
            net.a.windowFrames = cc.windowFrames();
            net.b.windowFrames = sc.windowFrames();
        }
        driver.receiveBufferA = cc.receiveBuffer();
        driver.receiveBufferB = sc.receiveBuffer();
    }

    /** A fully random scenario; {@code reliableShare}: probability of a perfect, reliable link. */
    static SimScenario random(long seed, String label, double reliableShare) {
        Random r = SimSeeds.random(seed, 1);
        boolean reliable = r.nextDouble() < reliableShare;
        int maxFrame = (int) logUniform(r, 96, 9000);
        SimNetwork net = new SimNetwork(r.nextLong(), reliable, maxFrame);
        net.baseDelay = logUniform(r, 500, 200_000);
        if (!reliable) {
            net.loss = r.nextDouble() * 0.2;
            net.duplicate = r.nextDouble() * 0.1;
            net.reorder = r.nextDouble() * 0.2;
            net.reorderDelay = logUniform(r, 1_000, 500_000);
        }
        net.jitter = r.nextBoolean() ? 0 : logUniform(r, 100, 50_000);
        if (r.nextInt(4) == 0) {
            net.capacity = maxFrame * (2 + r.nextInt(15));
        }
        String desc = label + " seed " + seed + (reliable ? " reliable" : " lossy");
        SimScenario s = new SimScenario(seed, net, config(r), config(r), desc);
        s.client.setNoDelay(r.nextBoolean());
        s.server.setNoDelay(r.nextBoolean());
        int payload = maxFrame - FrameFlyweight.HEADER_LENGTH;
        for (SimApp app : new SimApp[] {s.a, s.b}) {
            app.maxWrite = 1 + r.nextInt(4 * payload);
            app.maxRead = 1 + r.nextInt(r.nextBoolean() ? 64 : 4 * payload);
        }
        s.a.outOffset = r.nextInt();
        s.b.outOffset = r.nextInt();
        s.a.inOffset = s.b.outOffset;
        s.b.inOffset = s.a.outOffset;
        return s;
    }

    static SessionConfig config(Random r) {
        int rcv = r.nextInt(3) == 0 ? 1024 + r.nextInt(3 * 1024) : (int) logUniform(r, 8 * 1024, 256 * 1024);
        int snd = r.nextInt(3) == 0 ? 1024 + r.nextInt(3 * 1024) : (int) logUniform(r, 8 * 1024, 128 * 1024);
        long rtoMin = logUniform(r, 200_000, 2_000_000);
        // retransmits are generous: at 20% loss a dozen failed rounds in a row happen often enough in
        // 1000 seeds to make a correct engine fail; timing out is not what these tests look at
        return new SessionConfig(rcv, snd, 1 + r.nextInt(32), logUniform(r, 10_000, 2_000_000),
                logUniform(r, 10_000, 500_000), r.nextInt(4097), 2 + r.nextInt(63), rtoMin,
                Math.max(rtoMin, logUniform(r, 50_000_000, 500_000_000)), logUniform(r, 1_000_000, 20_000_000), 40);
    }

    /** A default-like config with the given buffers, for the scripted tests. */
    static SessionConfig config(int receiveBuffer, int sendBuffer) {
        return new SessionConfig(receiveBuffer, sendBuffer, 16, 1_000_000, 200_000, 2048, 32, 1_000_000,
                500_000_000, 20_000_000, 40);
    }

    /** A scripted scenario: given link and configs, apps idle until the test sets them up. */
    static SimScenario of(long seed, String label, SimNetwork net, SessionConfig cc, SessionConfig sc) {
        SimScenario s = new SimScenario(seed, net, cc, sc, label + " seed " + seed);
        s.a.reading = s.a.writing = s.b.reading = s.b.writing = false;
        s.a.shutdownWhenWritten = s.b.shutdownWhenWritten = false;
        s.a.closeWhenDone = s.b.closeWhenDone = false;
        return s;
    }

    static long logUniform(Random r, long min, long max) {
        return (long) (min * Math.pow((double) max / min, r.nextDouble()));
    }

    /**
     * Connects: listen, connect, optionally let the client app write before the handshake completes (the
     * server app starts after it, as an accepted socket would).
     */
    void handshake(boolean clientEarly) {
        server.listen();
        client.connect();
        driver.aActive = clientEarly;
        driver.bActive = false;
        driver.runUntil("handshake", () -> client.isEstablished() && server.isEstablished());
        driver.aActive = driver.bActive = true;
    }

    /** Runs until both sessions report finished (after both apps closed). */
    void finish() {
        driver.runUntil("finish", () -> client.isFinished() && server.isFinished());
    }

    AssertionError fail(String why) {
        return driver.fail(why, null);
    }
}
