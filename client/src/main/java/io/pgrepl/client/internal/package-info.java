/**
 * Not API: may change without notice. The connection's machinery (frame decoder, frontend
 * encoder, the exchange queue, TLS, startup, simple query) is public only because the
 * {@code stream} and {@code snapshot} packages drive it and Java 17 has no friend packages. It is
 * left out of the published javadoc; applications use {@link io.pgrepl.client.PgConnection}.
 */
package io.pgrepl.client.internal;
