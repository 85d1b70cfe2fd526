package io.sovia.spi.route;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.jvm.JvmTransport;
import io.sovia.spi.transport.Transport;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The accelerated transports of this JVM, fastest first: jvm, then those found by ServiceLoader in
 * path order (shm, eth). A transport that fails to load is left out with one log line.
 */
public final class Transports {
    private static final List<Transport> ALL = load();

    private Transports() {
    }

    private static List<Transport> load() {
        List<Transport> list = new ArrayList<>();
        list.add(new JvmTransport());
        ServiceLoader.load(Transport.class, Transports.class.getClassLoader()).stream().forEach(provider -> {
            try {
                list.add(provider.get());
            } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
                SoviaLog.warn("transport " + provider.type().getName() + " is off; its connects use TCP",
                        e.getCause() != null ? e.getCause() : e);
            }
        });
        list.sort((a, b) -> a.path().compareTo(b.path()));
        return Collections.unmodifiableList(list);
    }

    /** Fastest first. */
    public static List<Transport> all() {
        return ALL;
    }
}
