package io.pgrepl.client.internal.auth;

/**
 * What to put in SASLInitialResponse: the chosen mechanism name and the initial response bytes
 * (client-first-message). Neither is secret: the nonce is single-use and sent in clear anyway.
 */
public record SaslInitial(String mechanism, byte[] initialResponse) {
    @Override
    public String toString() {
        return "SaslInitial[" + mechanism + ", " + initialResponse.length + " bytes]";
    }
}
