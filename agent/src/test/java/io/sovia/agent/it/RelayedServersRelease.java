package io.sovia.agent.it;

import java.io.IOException;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Ends each {@link TransportTest} run by stopping the relay of {@link Transports#SHM_2JVM} forwarding to the servers
 * the run opened, so none of the relay's listeners outlives its scenario.
 */
final class RelayedServersRelease implements AfterEachCallback {

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        Transports.SHM_2JVM.releaseAll();
    }
}
