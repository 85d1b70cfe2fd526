package io.sovia.agent.it;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A scenario run once per {@link Transports#all() transport}; the method takes the {@link Transport} as its
 * parameter. Each run gets a 20 s timeout on a separate thread, so a hung socket call fails the test instead of the
 * whole suite; a longer {@code @Timeout} on the method wins. After each run, the relay of {@link Transports#SHM_2JVM}
 * stops forwarding to the run's servers.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@MethodSource("io.sovia.agent.it.Transports#all")
@Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@ExtendWith(RelayedServersRelease.class)
public @interface TransportTest {
}
