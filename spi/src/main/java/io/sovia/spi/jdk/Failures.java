package io.sovia.spi.jdk;

import java.io.IOException;

/** What a call into the JDK's internals through a method handle may throw, as an IOException or unchecked. */
final class Failures {
    private Failures() {
    }

    /** Returns {@code t} as an IOException to throw; throws it as it is if unchecked. */
    static IOException io(Throwable t) {
        if (t instanceof IOException e) {
            return e;
        }
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IOException(t);
    }
}
