/**
 * Shared-memory connections between JVMs on one host (DESIGN section 4). Not built yet: until it is,
 * the Router sends every connection to TCP.
 */
package io.sovia.shm;
