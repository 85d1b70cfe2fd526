package io.sovia.agent.it;

import java.io.IOException;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Ends each {@link TransportTest} run by stopping the relays of {@link Transports#SHM_2JVM} and {@link Transports#ETH}
 * forwarding to the servers the run opened, so none of the relays' listeners outlives its scenario.
 */
final class RelayedServersRelease implements AfterEachCallback {

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        Transports.SHM_2JVM.releaseAll();
        Transports.ETH.releaseAll();
    }
}
