package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgException;
import io.pgrepl.client.protocol.Exchange;
import io.pgrepl.client.protocol.ExchangeContext;
import io.pgrepl.client.protocol.Frontend;
import io.pgrepl.codec.backend.AuthenticationRequest;
import io.pgrepl.codec.backend.BackendKeyData;
import io.pgrepl.codec.backend.BackendMessage;
import io.pgrepl.codec.backend.ErrorFields;
import io.pgrepl.codec.backend.NegotiateProtocolVersion;
import io.pgrepl.codec.backend.ReadyForQuery;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * StartupMessage, the authentication conversation, then BackendKeyData and ReadyForQuery.
 * Authentication replies are computed by the {@link AuthSession}, which also enforces the
 * channel_binding / require_auth policies before anything secret leaves.
 */
public final class StartupExchange implements Exchange {
    /** Outcome: the cancel key, or null when the server sent none. */
    public record Result(BackendKeyData keyData, int protocolMinor, boolean channelBound) {}

    private enum State { AUTHENTICATING, AUTHENTICATED }

    private final int protocol;
    private final Map<String, String> startupParameters;
    private final AuthSession auth;
    private final CompletableFuture<Result> future = new CompletableFuture<>();
    private State state = State.AUTHENTICATING;
    private BackendKeyData keyData;
    private int protocolMinor;
    private PgException error;

    public StartupExchange(int protocol, Map<String, String> startupParameters, AuthSession auth) {
        this.protocol = protocol;
        this.protocolMinor = protocol & 0xffff;
        this.startupParameters = startupParameters;
        this.auth = auth;
    }

    public CompletableFuture<Result> future() {
        return future;
    }

    @Override
    public void start(ExchangeContext ctx) {
        this.ctx = ctx;
        ctx.writeAndFlush(Frontend.startup(ctx.alloc(), protocol, startupParameters));
    }

    @Override
    public boolean onFrame(byte type, ByteBuf payload) {
        switch (type) {
            case BackendMessage.AUTHENTICATION -> {
                if (state != State.AUTHENTICATING) throw unexpected("Authentication request after AuthenticationOk");
                onAuthentication(AuthenticationRequest.decode(payload));
            }
            case BackendMessage.NEGOTIATE_PROTOCOL_VERSION -> {
                NegotiateProtocolVersion v = NegotiateProtocolVersion.decode(payload);
                if (v.newestMinorVersion() > protocolMinor) throw unexpected("NegotiateProtocolVersion offering a newer minor version");
                protocolMinor = v.newestMinorVersion();
            }
            case BackendMessage.BACKEND_KEY_DATA -> {
                if (state != State.AUTHENTICATED) throw unexpected("BackendKeyData before AuthenticationOk");
                keyData = BackendKeyData.decode(payload);
                if (protocolMinor == 0 && keyData.secretKey().length != 4) {
                    throw unexpected("cancel key of " + keyData.secretKey().length + " bytes under protocol 3.0");
                }
            }
            case BackendMessage.ERROR_RESPONSE -> {
                error = new PgException(ErrorFields.decode(payload, type));
                future.completeExceptionally(error);
                // The server closes after a startup error; nothing more belongs to us.
                return true;
            }
            case BackendMessage.READY_FOR_QUERY -> {
                if (state != State.AUTHENTICATED) throw unexpected("ReadyForQuery before AuthenticationOk");
                ReadyForQuery.status(payload);
                future.complete(new Result(keyData, protocolMinor, auth.channelBound()));
                return true;
            }
            default -> throw unexpected(BackendMessage.name(type) + " during startup");
        }
        return false;
    }

    private ExchangeContext ctx;

    private void onAuthentication(AuthenticationRequest request) {
        if (request instanceof AuthenticationRequest.Ok) {
            auth.onOk();
            state = State.AUTHENTICATED;
        } else if (request instanceof AuthenticationRequest.CleartextPassword) {
            send(Frontend::password, auth.onCleartext());
        } else if (request instanceof AuthenticationRequest.Md5Password md5) {
            send(Frontend::password, auth.onMd5(md5.salt()));
        } else if (request instanceof AuthenticationRequest.Sasl sasl) {
            AuthSession.SaslStart s = auth.onSasl(sasl.mechanisms());
            ctx.writeAndFlush(Frontend.saslInitialResponse(ctx.alloc(), s.mechanism(), s.initialResponse()));
        } else if (request instanceof AuthenticationRequest.SaslContinue cont) {
            send(Frontend::saslResponse, auth.onSaslContinue(cont.data()));
        } else if (request instanceof AuthenticationRequest.SaslFinal fin) {
            auth.onSaslFinal(fin.data());
        } else {
            throw auth.unsupported(request.code());
        }
    }

    private void send(java.util.function.BiFunction<io.netty.buffer.ByteBufAllocator, byte[], ByteBuf> encoder, byte[] secret) {
        try {
            ctx.writeAndFlush(encoder.apply(ctx.alloc(), secret));
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }

    private static PgClientException unexpected(String what) {
        return new PgClientException(PgClientException.Kind.PROTOCOL, "protocol violation: " + what);
    }

    @Override
    public void fail(Throwable cause) {
        future.completeExceptionally(error != null ? error : cause);
    }
}
