package io.sovia.agent;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@Timeout(10)
class AgentArgumentsTest {
    @AfterEach
    void clear() {
        System.clearProperty("sovia.stats");
        System.clearProperty("sovia.log");
    }

    @Test
    void argumentsBecomeSoviaProperties() {
        SoviaAgent.applyArguments("stats=/tmp/x.json, sovia.log=debug");
        assertEquals("/tmp/x.json", System.getProperty("sovia.stats"));
        assertEquals("debug", System.getProperty("sovia.log"));
    }

    @Test
    void noArgumentsChangeNothing() {
        SoviaAgent.applyArguments(null);
        SoviaAgent.applyArguments(" ");
        assertEquals(null, System.getProperty("sovia.stats"));
    }

    @Test
    void malformedArgumentIsRejectedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SoviaAgent.applyArguments("stats=/tmp/x.json,verbose"));
        assertEquals("agent argument 'verbose' is not key=value", e.getMessage());
    }
}
