package io.sovia.agent;

import io.sovia.spi.jdk.JitBoundary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Method;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every method the compiler directive names exists: HotSpot takes a directive naming a renamed or removed method
 * without a word, and the boundary would be gone unseen.
 */
class JitBoundaryNamesTest {
    @Test
    @Timeout(30)
    void everyNamedMethodExists() throws Exception {
        assertFalse(JitBoundary.notInlined().isEmpty());
        for (String name : JitBoundary.notInlined()) {
            int dot = name.lastIndexOf('.');
            Class<?> type = Class.forName(name.substring(0, dot).replace('/', '.'));
            String method = name.substring(dot + 1);
            Method[] methods = type.getDeclaredMethods();
            assertTrue(method.equals("*") ? methods.length > 0
                    : Arrays.stream(methods).anyMatch(m -> m.getName().equals(method)), name);
        }
    }
}
