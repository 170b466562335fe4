package io.pgrepl.client.internal.auth;

import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.client.auth.AuthenticationException.Reason;
import io.pgrepl.client.auth.OAuthErrorResult;
import io.pgrepl.client.internal.JsonReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Reads the server's OAUTHBEARER error result (RFC 7628 section 3.2.2; see {@link OAuthErrorResult}).
 * Members other than {@code status}, {@code scope} and {@code openid-configuration} are skipped.
 * The client's strict {@link JsonReader} does the parsing, so that the client module keeps its few
 * dependencies; nesting is bounded so hostile input cannot recurse deep.
 */
final class OAuthErrorJson {
    private static final int MAX_NESTING = 8;

    private OAuthErrorJson() {}

    /**
     * Parses the server's bytes.
     *
     * @param json the AuthenticationSASLContinue payload
     * @return the three members
     * @throws AuthenticationException {@link Reason#MALFORMED_SERVER_MESSAGE} for anything but a
     *         UTF-8 JSON object with string-valued, unique members of those names and a status
     */
    static OAuthErrorResult parse(byte[] json) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(json)).toString();
        } catch (CharacterCodingException e) {
            throw malformed("it is not valid UTF-8");
        }
        Object top;
        try {
            // The bytes already arrived within the frame limit, so only the nesting needs a bound here.
            top = new JsonReader(Integer.MAX_VALUE, MAX_NESTING).read(text);
        } catch (JsonReader.JsonException e) {
            throw malformed(e.getMessage());
        }
        if (!(top instanceof Map<?, ?> members)) throw malformed("the top-level element must be an object");
        String status = member(members, "status");
        if (status == null) throw malformed("it has no status");
        return new OAuthErrorResult(status, member(members, "scope"), member(members, "openid-configuration"));
    }

    private static String member(Map<?, ?> members, String name) {
        Object v = members.get(name);
        // A member present as null is as wrong as a number: only absence means "not given".
        if (members.containsKey(name) && !(v instanceof String)) throw malformed("field \"" + name + "\" must be a string");
        return (String) v;
    }

    private static AuthenticationException malformed(String why) {
        return new AuthenticationException(Reason.MALFORMED_SERVER_MESSAGE,
                "could not parse the server's OAUTHBEARER error result: " + why);
    }
}
