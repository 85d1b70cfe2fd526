/**
 * The eth path: Sovia's engine in raw Ethernet frames between hosts of a host table (docs/design.md section 6).
 * {@link io.sovia.eth.EthTransport} is the transport; {@code EthPort} the JVM's packet sockets and link table,
 * {@code EthReceiver} its one thread, {@code EthLink} one end of a connection, {@code EthListener} a listener's
 * answers to hellos, {@code EthFrameDescriptor} the frame layout.
 */
package io.sovia.eth;
