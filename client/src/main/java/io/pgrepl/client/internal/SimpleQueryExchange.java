package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.pgrepl.client.Column;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgException;
import io.pgrepl.client.QueryResult;
import io.pgrepl.codec.backend.BackendMessage;
import io.pgrepl.codec.backend.CommandComplete;
import io.pgrepl.codec.backend.DataRow;
import io.pgrepl.codec.backend.ErrorFields;
import io.pgrepl.codec.backend.ReadyForQuery;
import io.pgrepl.codec.backend.RowDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Query 'Q' and its answers: per statement an optional RowDescription, DataRows and a
 * CommandComplete (or EmptyQueryResponse), then one ReadyForQuery. An ErrorResponse aborts the
 * rest of the string; the future fails with it once ReadyForQuery arrives. COPY is refused:
 * that is the streaming layer's business.
 */
public final class SimpleQueryExchange implements Exchange {
    private final String sql;
    private final CompletableFuture<List<QueryResult>> future = new CompletableFuture<>();
    private final List<QueryResult> results = new ArrayList<>();
    private final RowDescription rowDescription = new RowDescription();
    private final DataRow dataRow = new DataRow();
    private List<Column> columns = List.of();
    private List<io.pgrepl.client.Row> rows = new ArrayList<>();
    private Throwable error;
    private byte transactionStatus;

    public SimpleQueryExchange(String sql) {
        this.sql = sql;
    }

    public CompletableFuture<List<QueryResult>> future() {
        return future;
    }

    /** The ReadyForQuery status after completion: I, T or E. */
    public byte transactionStatus() {
        return transactionStatus;
    }

    @Override
    public void start(ExchangeContext ctx) {
        ctx.writeAndFlush(Frontend.query(ctx.alloc(), sql));
    }

    @Override
    public boolean onFrame(byte type, ByteBuf payload) {
        switch (type) {
            case BackendMessage.ROW_DESCRIPTION -> {
                rowDescription.wrap(payload);
                List<Column> cols = new ArrayList<>(rowDescription.fieldCount());
                for (int i = 0; i < rowDescription.fieldCount(); i++) {
                    cols.add(new Column(rowDescription.name(i), rowDescription.typeOid(i)));
                }
                columns = List.copyOf(cols);
                rows = new ArrayList<>();
            }
            case BackendMessage.DATA_ROW -> {
                dataRow.wrap(payload);
                if (dataRow.columnCount() != columns.size()) {
                    throw new PgClientException(PgClientException.Kind.PROTOCOL, "protocol violation: DataRow with "
                            + dataRow.columnCount() + " columns, RowDescription announced " + columns.size());
                }
                byte[][] values = new byte[dataRow.columnCount()][];
                for (int i = 0; i < values.length; i++) values[i] = dataRow.bytes(i);
                rows.add(io.pgrepl.client.Row.of(columns, values));
            }
            case BackendMessage.COMMAND_COMPLETE -> endStatement(CommandComplete.tag(payload));
            case BackendMessage.EMPTY_QUERY_RESPONSE -> endStatement(null);
            case BackendMessage.ERROR_RESPONSE -> error = new PgException(ErrorFields.decode(payload, type));
            case BackendMessage.COPY_IN_RESPONSE, BackendMessage.COPY_OUT_RESPONSE, BackendMessage.COPY_BOTH_RESPONSE ->
                    // Cannot be answered correctly from here; failing the connection is the only safe exit.
                    throw new PgClientException(PgClientException.Kind.PROTOCOL,
                            "simpleQuery cannot run a command that enters COPY mode; use the streaming API");
            case BackendMessage.READY_FOR_QUERY -> {
                transactionStatus = ReadyForQuery.status(payload);
                if (error != null) future.completeExceptionally(error);
                else future.complete(List.copyOf(results));
                return true;
            }
            default -> throw new PgClientException(PgClientException.Kind.PROTOCOL,
                    "protocol violation: unexpected " + BackendMessage.name(type) + " in a simple query");
        }
        return false;
    }

    private void endStatement(String tag) {
        results.add(new QueryResult(columns, rows, tag));
        columns = List.of();
        rows = new ArrayList<>();
    }

    @Override
    public void fail(Throwable cause) {
        future.completeExceptionally(error != null && !(cause instanceof PgException) ? error : cause);
    }
}
