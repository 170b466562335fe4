/**
 * Not API: may change without notice. The demand-driven buffer between a replication stream's
 * event loop and a {@link java.util.concurrent.Flow.Subscriber}, shared by the reactive face
 * ({@code io.pgrepl.client.reactive}) and the snapshot publisher; public only because those are
 * different packages.
 */
package io.pgrepl.client.internal.reactive;
