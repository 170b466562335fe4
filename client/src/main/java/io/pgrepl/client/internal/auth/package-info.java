/**
 * Not API: may change without notice. Answers the server's authentication requests (SCRAM-SHA-256
 * with channel binding, SASLprep, MD5, cleartext) for the startup exchange. What applications set
 * or catch lives in {@code io.pgrepl.client.auth}: {@code RequireAuth}, {@code ChannelBindingMode},
 * {@code PasswordSource} and {@code AuthenticationException}.
 */
package io.pgrepl.client.internal.auth;
