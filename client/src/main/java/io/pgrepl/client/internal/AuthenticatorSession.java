package io.pgrepl.client.internal;

import io.pgrepl.client.PgException;
import io.pgrepl.client.auth.AuthRequestKind;
import io.pgrepl.client.internal.auth.Authenticator;
import io.pgrepl.client.internal.auth.SaslInitial;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** Drives the auth package's {@link Authenticator} from the startup exchange. */
public final class AuthenticatorSession implements AuthSession {
    private final Authenticator authenticator;

    public AuthenticatorSession(Authenticator authenticator) {
        this.authenticator = authenticator;
    }

    @Override
    public byte[] onCleartext() {
        return authenticator.onCleartextRequest();
    }

    @Override
    public byte[] onMd5(byte[] salt) {
        return authenticator.onMd5Request(salt);
    }

    @Override
    public CompletionStage<SaslStart> onSasl(List<String> mechanisms) {
        return authenticator.onSaslRequestAsync(mechanisms)
                .thenApply((SaslInitial s) -> new SaslStart(s.mechanism(), s.initialResponse()));
    }

    @Override
    public Throwable onServerError(PgException error) {
        return authenticator.oauthRejection(error).<Throwable>map(e -> e).orElse(error);
    }

    @Override
    public byte[] onSaslContinue(byte[] serverData) {
        return authenticator.onSaslContinue(serverData);
    }

    @Override
    public void onSaslFinal(byte[] serverData) {
        authenticator.onSaslFinal(serverData);
    }

    @Override
    public void onOk() {
        authenticator.onAuthenticationOk();
    }

    @Override
    public boolean channelBound() {
        return authenticator.isChannelBound();
    }

    @Override
    public RuntimeException unsupported(int code) {
        try {
            authenticator.onUnsupportedRequest(AuthRequestKind.fromCode(code));
        } catch (RuntimeException e) {
            return e;
        }
        return new IllegalStateException("unsupported authentication method " + code);
    }
}
