/**
 * Sovia's reliable protocol in raw Ethernet frames between cluster hosts (DESIGN section 5). Not built
 * yet: until it is, the Router sends every connection to TCP.
 */
package io.sovia.eth;
