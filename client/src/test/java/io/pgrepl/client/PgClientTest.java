package io.pgrepl.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoopGroup;
import io.pgrepl.client.internal.Transports;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PgClientTest {
    @Test
    void ownedGroupIsShutDownBorrowedGroupIsNot() {
        PgClient owned = PgClient.create(1);
        EventLoopGroup g = owned.eventLoopGroup();
        owned.close();
        assertTrue(g.isShutdown());

        EventLoopGroup mine = Transports.newGroup(1, "test");
        try {
            PgClient borrowed = PgClient.using(mine);
            assertSame(mine, borrowed.eventLoopGroup());
            borrowed.close();
            assertFalse(mine.isShutdown());
        } finally {
            mine.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void closeFromItsOwnEventLoopStartsTheShutdownWithoutBlocking() throws Exception {
        PgClient client = PgClient.create(1);
        EventLoopGroup g = client.eventLoopGroup();
        try {
            // without the own-thread check the loop waits for its own termination: a deadlock
            g.submit(client::close).get(10, TimeUnit.SECONDS);
            assertTrue(g.isShuttingDown());
            assertTrue(g.awaitTermination(10, TimeUnit.SECONDS));
        } finally {
            g.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void connectionsRunOnTheClientsGroup() throws Exception {
        try (PgClient client = PgClient.create(1);
             FakeBackend fake = new FakeBackend((in, out) -> {
                 FakeBackend.readUntyped(in);
                 out.write(FakeBackend.startupOk("18.1"));
             })) {
            PgConnection c = client.connect(fake.config().build()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertTrue(client.eventLoopGroup().next().parent() == client.eventLoopGroup()
                    && c.eventLoop().parent() == client.eventLoopGroup());
            c.close();
        }
    }
}
