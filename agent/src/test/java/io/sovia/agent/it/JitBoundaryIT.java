package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The agent's compiler directive (sovia.jit.boundary): read back through the JVM's own diagnostic command, as
 * {@code jcmd PID Compiler.directives_print} shows it. It is added on a thread of its own at start, so the test
 * waits for it a bounded time.
 */
class JitBoundaryIT extends SoviaTestBase {

    @Test
    @Timeout(30)
    void theEngineIsNotInlinedIntoItsCallers() throws Exception {
        assumeFalse(Boolean.getBoolean("sovia.it.plain"), "the plain JDK has no directive to show");
        ObjectName diagnostics = new ObjectName("com.sun.management:type=DiagnosticCommand");
        String printed = "";
        long end = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() - end < 0 && !printed.contains("-io/sovia/spi/engine/Session.*")) {
            printed = (String) ManagementFactory.getPlatformMBeanServer().invoke(diagnostics,
                    "compilerDirectivesPrint", new Object[] {new String[0]}, new String[] {String[].class.getName()});
            Thread.sleep(50);
        }
        assertTrue(printed.contains("-io/sovia/spi/engine/Session.*"), printed);
        assertTrue(printed.contains("-io/sovia/spi/engine/SpinThenSleep.await"), printed);
    }
}
