/**
 * Not API: may change without notice. libpq connection strings and URIs, host lists and the
 * password file, read by {@code ConnectionConfig.parse}; applications go through that, and use
 * {@code io.pgrepl.client.config} for the settings' types.
 */
package io.pgrepl.client.internal.config;
