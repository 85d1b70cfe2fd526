package io.sovia.spi.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** {@code io.sovia.Fallback}: a connect went to TCP, with the reason the stats file counts it under. */
@Name("io.sovia.Fallback")
@Label("Sovia Fallback")
@Category("Sovia")
@Description("A connect went to the JDK's TCP instead of an accelerated path")
@StackTrace(false)
final class FallbackEvent extends jdk.jfr.Event {
    @Label("Reason")
    String reason;
    @Label("Remote Address")
    String remote;

    static void emit(String reason, String remote) {
        FallbackEvent e = new FallbackEvent();
        if (e.shouldCommit()) {
            e.reason = reason;
            e.remote = remote;
            e.commit();
        }
    }
}
