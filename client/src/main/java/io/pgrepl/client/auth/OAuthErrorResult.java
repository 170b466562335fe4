package io.pgrepl.client.auth;

/**
 * The error result a PostgreSQL 18 server sends when it rejects an OAuth bearer token (RFC 7628
 * section 3.2.2): what token it would accept. Nothing in it is secret.
 *
 * @param status              the OAuth error code, e.g. {@code invalid_token}
 * @param scope               the scope the server asks for (pg_hba {@code scope}), or null
 * @param openidConfiguration the issuer's discovery document URL (from pg_hba {@code issuer}), or null
 */
public record OAuthErrorResult(String status, String scope, String openidConfiguration) implements java.io.Serializable {}
