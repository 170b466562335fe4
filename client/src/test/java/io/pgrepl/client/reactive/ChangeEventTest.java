package io.pgrepl.client.reactive;

import io.pgrepl.codec.pgoutput.record.Begin;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.CommitPrepared;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.RollbackPrepared;
import io.pgrepl.codec.pgoutput.record.StreamCommit;
import io.pgrepl.codec.pgoutput.record.Truncate;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ChangeEventTest {
    @Test
    void onlyTransactionEndsAndStandaloneMessagesConfirmAnything() {
        List<Long> acks = new ArrayList<>();
        new ChangeEvent(new Begin(0x10, 1, 7), 0x10, 0x10, acks::add).acknowledge();
        new ChangeEvent(new Truncate(0, 0, List.of(1)), 0x11, 0x11, acks::add).acknowledge();
        new ChangeEvent(new Message(0, 1, 0x12, "p", new byte[0]), 0x12, 0x12, acks::add).acknowledge();
        assertEquals(List.of(), acks, "mid-transaction positions are never confirmed");
        new ChangeEvent(new Commit(0, 0x20, 0x28, 1), 0x28, 0x28, acks::add).acknowledge();
        new ChangeEvent(new StreamCommit(9, 0, 0x30, 0x38, 1), 0x38, 0x38, acks::add).acknowledge();
        new ChangeEvent(new CommitPrepared(0, 0x40, 0x48, 1, 9, "g"), 0x48, 0x48, acks::add).acknowledge();
        new ChangeEvent(new RollbackPrepared(0, 0x50, 0x58, 1, 2, 9, "g"), 0x58, 0x58, acks::add).acknowledge();
        new ChangeEvent(new Message(0, 0, 0x60, "p", new byte[0]), 0x60, 0x60, acks::add).acknowledge();
        assertEquals(List.of(0x28L, 0x38L, 0x48L, 0x58L, 0x60L), acks);
    }
}
