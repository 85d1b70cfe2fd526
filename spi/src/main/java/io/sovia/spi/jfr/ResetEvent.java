package io.sovia.spi.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** {@code io.sovia.Reset}: a connection was reset by either end, or its peer was declared dead. */
@Name("io.sovia.Reset")
@Label("Sovia Reset")
@Category("Sovia")
@Description("An accelerated connection was reset or lost its peer")
@StackTrace(false)
final class ResetEvent extends jdk.jfr.Event {
    @Label("Reason")
    String reason;

    static void emit(String reason) {
        ResetEvent e = new ResetEvent();
        if (e.shouldCommit()) {
            e.reason = reason;
            e.commit();
        }
    }
}
