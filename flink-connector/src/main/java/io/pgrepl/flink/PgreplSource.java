package io.pgrepl.flink;

import io.pgrepl.flink.internal.EnumeratorState;
import io.pgrepl.flink.internal.EnumeratorStateSerializer;
import io.pgrepl.flink.internal.PgreplEnumerator;
import io.pgrepl.flink.internal.PgreplSourceReader;
import io.pgrepl.flink.internal.PgreplSplit;
import io.pgrepl.flink.internal.Settings;
import io.pgrepl.flink.internal.SplitSerializer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A FLIP-27 source of PostgreSQL changes over pgoutput: the captured tables are read in parallel
 * snapshot splits (key ranges planned by pgrepl's incremental snapshot planner, each read in short
 * REPEATABLE READ transactions), then one reader streams the slot from where it was created,
 * dropping the changes the snapshot already held. Exactly once up to the checkpoint: positions
 * live in Flink's state and the slot is confirmed only for completed checkpoints. Build one with
 * {@link #builder()}; docs/flink.md has the whole story.
 *
 * @param <T> the element type, as the deserializer makes it
 */
public final class PgreplSource<T> implements Source<T, PgreplSplit, EnumeratorState>, ResultTypeQueryable<T> {
    private static final long serialVersionUID = 1L;

    private final Settings settings;
    private final PgreplDeserializer<T> deserializer;

    PgreplSource(Settings settings, PgreplDeserializer<T> deserializer) {
        this.settings = settings;
        this.deserializer = deserializer;
    }

    /** {@return a builder} */
    public static PgreplSourceBuilder builder() {
        return new PgreplSourceBuilder();
    }

    /** {@return the settings (for the table source and tests)} */
    public Settings settings() {
        return settings;
    }

    @Override
    public Boundedness getBoundedness() {
        return settings.startupMode() == StartupMode.SNAPSHOT ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<PgreplSplit, EnumeratorState> createEnumerator(SplitEnumeratorContext<PgreplSplit> context) {
        return PgreplEnumerator.create(context, settings, EnumeratorState.initial());
    }

    @Override
    public SplitEnumerator<PgreplSplit, EnumeratorState> restoreEnumerator(SplitEnumeratorContext<PgreplSplit> context,
                                                                          EnumeratorState checkpoint) {
        return PgreplEnumerator.restore(context, settings, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<PgreplSplit> getSplitSerializer() {
        return SplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<EnumeratorState> getEnumeratorCheckpointSerializer() {
        return EnumeratorStateSerializer.INSTANCE;
    }

    @Override
    public SourceReader<T, PgreplSplit> createReader(SourceReaderContext context) {
        return PgreplSourceReader.create(settings, deserializer, context);
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return deserializer.getProducedType();
    }
}
