package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * A fast proof of the delivery rules: random sequences of database commits, produce,
 * producer acknowledgements (in any order), Connect offset commits (in two halves, so
 * acknowledgements can arrive while one is in flight), heartbeats, worker restarts (records in
 * flight land or not), restarts during the initial snapshot, and reconnects, run through
 * {@link DeliveryModel}. After every step: the slot is never confirmed past the committed offsets
 * and what they cover is in Kafka; a record is written twice only beyond the committed offset;
 * at the end a clean drain loses nothing.
 */
class DeliveryRulesModelTest {

    @Property(tries = 1000)
    void theRulesHoldUnderAnySequence(@ForAll("chains") ActionChain<DeliveryModel> chain) {
        DeliveryModel end = chain.withInvariant("delivery rules", DeliveryModel::checkInvariants).run();
        try {
            end.drainAndCheckNothingLost();
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + " after " + chain.transformations(), e);
        }
    }

    @Provide
    Arbitrary<ActionChain<DeliveryModel>> chains() {
        return chains(false);
    }

    static Arbitrary<ActionChain<DeliveryModel>> chains(boolean brokenConfirm) {
        return ActionChain.<DeliveryModel>startWith(() -> new DeliveryModel(brokenConfirm))
                .withAction(3, Action.just(Transformer.mutate("produce", DeliveryModel::produce)))
                .withAction(2, new Action.Independent<DeliveryModel>() {
                    @Override
                    public Arbitrary<Transformer<DeliveryModel>> transformer() {
                        return Arbitraries.integers().between(1, 4).map(n -> Transformer.mutate("db commit " + n, m -> m.dbCommit(n)));
                    }
                })
                .withAction(4, new Action.Independent<DeliveryModel>() {
                    @Override
                    public Arbitrary<Transformer<DeliveryModel>> transformer() {
                        return Arbitraries.integers().between(0, 7).map(k -> Transformer.mutate("ack " + k, m -> m.ack(k)));
                    }
                })
                .withAction(2, Action.just(Transformer.mutate("begin offset commit", DeliveryModel::beginCommit)))
                .withAction(2, Action.just(Transformer.mutate("end offset commit", DeliveryModel::endCommit)))
                .withAction(2, Action.just(Transformer.mutate("heartbeat", DeliveryModel::heartbeat)))
                .withAction(1, new Action.Independent<DeliveryModel>() {
                    @Override
                    public Arbitrary<Transformer<DeliveryModel>> transformer() {
                        return Arbitraries.longs().map(l -> Transformer.mutate("restart (landed " + Long.toHexString(l) + ")",
                                m -> m.restart(l)));
                    }
                })
                .withAction(1, Action.<DeliveryModel>builder().when(DeliveryModel::inSnapshot).describeAs("snapshot restart")
                        .justMutate(m -> m.restart(0)))
                .withAction(1, Action.just(Transformer.mutate("reconnect", DeliveryModel::reconnect)))
                .withMaxTransformations(60);
    }

    /**
     * The broken rule the model must catch: confirming what is wholly in Kafka now, instead of what
     * was at the previous offset commit, confirms a transaction acknowledged while the commit was
     * flushing, whose offset is not stored.
     */
    @Example
    void confirmingTheCurrentCandidateIsCaught() {
        DeliveryModel m = new DeliveryModel(true);
        for (int i = 0; i < DeliveryModel.READS; i++) m.produce();
        for (int i = 0; i < DeliveryModel.READS; i++) m.ack(0);
        m.dbCommit(1);
        m.produce();
        m.beginCommit(); // snapshots the reads' offsets only
        m.ack(0); // the change is acknowledged while the flush runs
        m.endCommit();
        AssertionError e = assertThrows(AssertionError.class, m::checkInvariants);
        assertTrue(e.getMessage().contains("past the committed offset"), e.getMessage());

        DeliveryModel right = new DeliveryModel(false);
        for (int i = 0; i < DeliveryModel.READS; i++) right.produce();
        for (int i = 0; i < DeliveryModel.READS; i++) right.ack(0);
        right.dbCommit(1);
        right.produce();
        right.beginCommit();
        right.ack(0);
        right.endCommit();
        right.checkInvariants();
        right.drainAndCheckNothingLost();
    }

    /** A heartbeat between two chunks of a transaction, still in flight over two offset commits. */
    @Example
    void aHeartbeatInFlightBetweenTwoChunksHoldsTheTransactionBack() {
        DeliveryModel m = new DeliveryModel(false);
        for (int i = 0; i < DeliveryModel.READS; i++) m.produce();
        for (int i = 0; i < DeliveryModel.READS; i++) m.ack(0);
        m.dbCommit(2);
        m.produce(); // 100:0
        m.heartbeat();
        m.produce(); // 100:1, sealed
        m.ack(0); // 100:0
        m.ack(1); // 100:1 (the heartbeat stays in flight)
        for (int i = 0; i < 2; i++) {
            m.beginCommit();
            m.endCommit();
            m.checkInvariants();
        }
        m.drainAndCheckNothingLost();
    }

    /**
     * Two untracked records with one ticket (two heartbeats at 100: one between the transaction's
     * chunks, one after its seal) acknowledged in the other order, as records of different partitions
     * may be (an incremental snapshot's reads share tickets with heartbeats). The later one's
     * acknowledgement must not release the transaction the earlier one holds back. Found by jqwik.
     */
    @Example
    void aLaterUntrackedRecordWithTheSameTicketDoesNotReleaseAnEarlierOnesTransaction() {
        DeliveryModel m = new DeliveryModel(false);
        m.dbCommit(4);
        for (int i = 0; i < DeliveryModel.READS; i++) m.produce();
        for (int i = 0; i < DeliveryModel.READS; i++) m.ack(0);
        m.produce(); // 100:0
        m.produce(); // 100:1
        m.ack(0); // 100:0
        m.heartbeat(); // between two chunks: holds 100 back
        m.produce(); // 100:2
        m.produce(); // 100:3, sealed
        m.heartbeat(); // after the seal: holds the next transaction back
        m.ack(2); // 100:2 (in flight: 100:1, hb, 100:2, 100:3, hb)
        m.ack(0); // 100:1
        m.ack(1); // 100:3
        m.ack(1); // the second heartbeat, before the first
        for (int i = 0; i < 2; i++) {
            m.beginCommit();
            m.endCommit();
            m.checkInvariants();
        }
        m.drainAndCheckNothingLost();
    }
}
