package io.sovia.agent.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent initializes {@code ThreadLocalRandom} before it installs its class-file transformers (JDK-8164165): a
 * transformer's lock lives in a {@code ConcurrentHashMap}, which under contention initializes that class, and if that
 * happens while a class its initializer needs is being transformed, the class is broken for the whole JVM (an
 * HttpClient app under the agent died of it on JDK 25). A JVM without the agent has not initialized it by main, so
 * the probe tells the agent's doing from the JVM's.
 */
@Timeout(120)
class TransformerSafetyIT {
    @TempDir
    Path dir;

    @Test
    void threadLocalRandomIsInitializedBeforeTheTransformersAreInstalled() throws Exception {
        assertEquals("ThreadLocalRandom initialized=false", probe("plain", false));
        assertEquals("ThreadLocalRandom initialized=true", probe("agent", true));
    }

    private String probe(String name, boolean agent) throws Exception {
        List<String> command = new ArrayList<>(List.of(Forked.JAVA.toString()));
        if (agent) {
            command.add("-javaagent:" + Forked.agentJar());
        }
        command.addAll(List.of("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-cp", Forked.testClasses(),
                InitProbe.class.getName()));
        try (Forked probe = Forked.start(dir, name, command)) {
            Forked.Result r = probe.result(Duration.ofSeconds(60));
            assertEquals(0, r.exit(), probe.report());
            return r.stdout().strip();
        }
    }
}
