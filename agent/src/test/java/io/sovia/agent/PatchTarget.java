package io.sovia.agent;

/** Methods {@link EntryPatchTest} patches: branches, a loop at the very start and a handler, so frames matter. */
public class PatchTarget {
    static int spins;

    public static String make(boolean server) {
        while (server && spins < 0) {
            spins++;
        }
        return server ? "jdk-server" : "jdk-client";
    }

    public long move(long position, long count, Object target) {
        try {
            return target == null ? -1 : position + count;
        } catch (RuntimeException e) {
            return -2;
        }
    }

    public static boolean isAvailable() {
        return spins >= 0;
    }
}
