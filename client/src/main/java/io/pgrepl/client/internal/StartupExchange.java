package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgException;
import io.pgrepl.client.internal.auth.ScramSha256Client;
import io.pgrepl.codec.backend.AuthenticationRequest;
import io.pgrepl.codec.backend.BackendKeyData;
import io.pgrepl.codec.backend.BackendMessage;
import io.pgrepl.codec.backend.ErrorFields;
import io.pgrepl.codec.backend.NegotiateProtocolVersion;
import io.pgrepl.codec.backend.ReadyForQuery;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * StartupMessage, the authentication conversation, then BackendKeyData and ReadyForQuery.
 * Authentication replies are computed by the {@link AuthSession}, which also enforces the
 * channel_binding / require_auth policies before anything secret leaves.
 */
public final class StartupExchange implements Exchange {
    /**
     * Outcome: the cancel key (null when the server sent none), the protocol minor version in
     * force after negotiation, and the {@code _pq_.} options the server said it does not know.
     */
    public record Result(BackendKeyData keyData, int protocolMinor, boolean channelBound, List<String> unsupportedOptions) {}

    private enum State { AUTHENTICATING, AUTHENTICATED }

    private final int protocol;
    private final int minMinor;
    private List<String> unsupportedOptions = List.of();
    private boolean negotiated;
    private boolean deriving;
    private final Map<String, String> startupParameters;
    private final AuthSession auth;
    private final CompletableFuture<Result> future = new CompletableFuture<>();
    private State state = State.AUTHENTICATING;
    private BackendKeyData keyData;
    private int protocolMinor;
    private PgException error;

    /**
     * @param protocol the version code to request (3.0 or 3.2)
     * @param minMinor the lowest minor version acceptable after NegotiateProtocolVersion
     */
    public StartupExchange(int protocol, int minMinor, Map<String, String> startupParameters, AuthSession auth) {
        this.protocol = protocol;
        this.minMinor = minMinor;
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
                // The server waits for our SASLResponse; anything else meanwhile is out of order.
                if (deriving) throw unexpected("Authentication request while the SCRAM proof or OAuth token was being prepared");
                if (state != State.AUTHENTICATING) throw unexpected("Authentication request after AuthenticationOk");
                onAuthentication(AuthenticationRequest.decode(payload));
            }
            case BackendMessage.NEGOTIATE_PROTOCOL_VERSION -> onNegotiate(NegotiateProtocolVersion.decode(payload));
            case BackendMessage.BACKEND_KEY_DATA -> {
                if (state != State.AUTHENTICATED) throw unexpected("BackendKeyData before AuthenticationOk");
                if (keyData != null) throw unexpected("second BackendKeyData");
                keyData = BackendKeyData.decode(payload);
                int len = keyData.secretKey().length;
                if (protocolMinor == 0 ? len != 4 : len < 4) {
                    throw unexpected("cancel key of " + len + " bytes under protocol 3." + protocolMinor);
                }
            }
            case BackendMessage.ERROR_RESPONSE -> {
                error = new PgException(ErrorFields.decode(payload, type));
                future.completeExceptionally(auth.onServerError(error));
                // The server closes after a startup error; nothing more belongs to us.
                return true;
            }
            case BackendMessage.READY_FOR_QUERY -> {
                if (state != State.AUTHENTICATED) throw unexpected("ReadyForQuery before AuthenticationOk");
                ReadyForQuery.status(payload);
                future.complete(new Result(keyData, protocolMinor, auth.channelBound(), unsupportedOptions));
                return true;
            }
            default -> throw unexpected(BackendMessage.name(type) + " during startup");
        }
        return false;
    }

    private ExchangeContext ctx;

    /**
     * The server speaks an older minor version and/or ignores some {@code _pq_.} options. Allowed
     * before and (from middleware) after AuthenticationOk, once. A downgrade below the minimum the
     * caller accepts is fatal; so is an "upgrade", the reserved 3.1, or an option we never sent.
     */
    private void onNegotiate(NegotiateProtocolVersion v) {
        if (negotiated) throw unexpected("second NegotiateProtocolVersion");
        negotiated = true;
        int offered = v.newestMinorVersion();
        int requested = protocol & 0xffff;
        if (offered > requested) {
            throw unexpected("NegotiateProtocolVersion offering 3." + offered + " when 3." + requested + " was requested");
        }
        if (offered == 1 || offered < 0) throw unexpected("NegotiateProtocolVersion offering the invalid version 3." + offered);
        if (offered < minMinor) {
            throw new PgClientException(PgClientException.Kind.UNSUPPORTED_BY_SERVER, "server only supports protocol version 3."
                    + offered + ", but min_protocol_version was set to 3." + minMinor);
        }
        for (String option : v.unrecognizedOptions()) {
            if (!option.startsWith("_pq_.")) {
                throw unexpected("NegotiateProtocolVersion reported the parameter \"" + printable(option)
                        + "\", which is not a _pq_. protocol option");
            }
            if (!startupParameters.containsKey(option)) {
                throw unexpected("NegotiateProtocolVersion reported the option \"" + printable(option) + "\", which was not requested");
            }
        }
        protocolMinor = offered;
        unsupportedOptions = v.unrecognizedOptions();
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(64).forEach(c -> b.appendCodePoint(c < 0x20 || c == 0x7f ? '?' : c));
        return b.toString();
    }

    private void onAuthentication(AuthenticationRequest request) {
        if (request instanceof AuthenticationRequest.Ok) {
            auth.onOk();
            state = State.AUTHENTICATED;
        } else if (request instanceof AuthenticationRequest.CleartextPassword) {
            send(Frontend::password, auth.onCleartext());
        } else if (request instanceof AuthenticationRequest.Md5Password md5) {
            send(Frontend::password, auth.onMd5(md5.salt()));
        } else if (request instanceof AuthenticationRequest.Sasl sasl) {
            CompletableFuture<AuthSession.SaslStart> start = auth.onSasl(sasl.mechanisms()).toCompletableFuture();
            if (start.isDone() && !start.isCompletedExceptionally()) {
                sendInitial(start.join());
            } else {
                // An OAuth token source answers later (or failed): reply from the event loop once it has.
                deriving = true;
                sendWhenReady(start, this::sendInitial);
            }
        } else if (request instanceof AuthenticationRequest.SaslContinue cont) {
            byte[] serverFirst = cont.data();
            if (ScramSha256Client.iterationsOf(serverFirst) > KeyDerivation.OFFLOAD_ITERATIONS) {
                deriveOffLoop(serverFirst);
            } else {
                send(Frontend::saslResponse, auth.onSaslContinue(serverFirst));
            }
        } else if (request instanceof AuthenticationRequest.SaslFinal fin) {
            auth.onSaslFinal(fin.data());
        } else {
            throw auth.unsupported(request.code());
        }
    }

    /**
     * PBKDF2 with a high iteration count runs on {@link KeyDerivation}'s threads; the reply is
     * written back on the event loop. Nothing else is sent meanwhile (the server is waiting for
     * exactly this message), so protocol order is kept.
     */
    private void deriveOffLoop(byte[] serverFirst) {
        deriving = true;
        sendWhenReady(CompletableFuture.supplyAsync(() -> auth.onSaslContinue(serverFirst), KeyDerivation.executor()),
                reply -> send(Frontend::saslResponse, reply));
    }

    /** SASLInitialResponse; an OAUTHBEARER one carries the token, so its buffer is zeroed like a password's. */
    private void sendInitial(AuthSession.SaslStart s) {
        send((alloc, bytes) -> Frontend.saslInitialResponse(alloc, s.mechanism(), bytes), s.initialResponse());
    }

    /** Sends what {@code pending} yields from the event loop, unless the attempt ended meanwhile. */
    private <T> void sendWhenReady(CompletableFuture<T> pending, java.util.function.Consumer<T> sender) {
        Channel channel = ctx.channel();
        pending.whenComplete((reply, error) -> channel.eventLoop().execute(() -> {
                    deriving = false;
                    if (future.isDone()) {
                        // The attempt ended meanwhile (timeout, server error): the secret is never sent.
                        if (reply instanceof byte[] b) Arrays.fill(b, (byte) 0);
                        if (reply instanceof AuthSession.SaslStart s) Arrays.fill(s.initialResponse(), (byte) 0);
                        return;
                    }
                    if (error != null) {
                        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                                ? error.getCause() : error;
                        future.completeExceptionally(cause);
                        channel.close();
                        return;
                    }
                    sender.accept(reply);
                }));
    }

    private void send(java.util.function.BiFunction<io.netty.buffer.ByteBufAllocator, byte[], ByteBuf> encoder, byte[] secret) {
        ByteBuf message;
        try {
            message = encoder.apply(ctx.alloc(), secret);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
        // Keep a reference so the pooled buffer is zeroed before it goes back to the pool.
        ctx.channel().writeAndFlush(message.retain()).addListener(f -> {
            message.setZero(0, message.capacity());
            message.release();
        });
    }

    private static PgClientException unexpected(String what) {
        return new PgClientException(PgClientException.Kind.PROTOCOL, "protocol violation: " + what);
    }

    @Override
    public void fail(Throwable cause) {
        future.completeExceptionally(error != null ? error : cause);
    }
}
