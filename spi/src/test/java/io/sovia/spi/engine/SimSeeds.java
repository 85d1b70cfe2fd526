package io.sovia.spi.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Runs a seeded test body over many seeds, or over one: {@code -Dsovia.seed=1234} replays seed 1234
 * alone, {@code -Dsovia.seeds=N} changes how many run. Failing seeds are collected (up to a few, so a
 * bug that breaks every seed still ends fast) and named in the assertion message.
 */
final class SimSeeds {
    private static final int MAX_FAILURES = 5;

    private SimSeeds() {
    }

    /** A well-mixed Random for a seed: java.util.Random's first outputs for nearby seeds are nearly equal. */
    static java.util.Random random(long seed, long salt) {
        long z = seed * 0x9E3779B97F4A7C15L + salt;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return new java.util.Random(z ^ (z >>> 31));
    }

    static void run(String test, int count, LongConsumer body) {
        String one = System.getProperty("sovia.seed");
        if (one != null && !one.isBlank()) {
            body.accept(Long.parseLong(one.trim()));
            return;
        }
        int n = Integer.getInteger("sovia.seeds", count);
        List<Long> failed = new ArrayList<>();
        Throwable first = null;
        for (long seed = 0; seed < n && failed.size() < MAX_FAILURES; seed++) {
            try {
                body.accept(seed);
            } catch (AssertionError | RuntimeException e) {
                failed.add(seed);
                if (first == null) {
                    first = e;
                }
            }
        }
        if (!failed.isEmpty()) {
            AssertionError e = new AssertionError(test + ": failing seeds " + failed + " (stopped after "
                    + MAX_FAILURES + "); replay one with -Dsovia.seed=" + failed.get(0) + "\nfirst failure: "
                    + first.getMessage(), first);
            throw e;
        }
    }
}
