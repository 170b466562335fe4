package io.pgrepl.flink;

import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * {@link PgRow}'s type: serialized by Kryo as a generic type (its bytes and serializer snapshot are
 * those of {@code TypeInformation.of(PgRow.class)}, so state and savepoints stay compatible), but
 * copied by {@link PgRow#deepCopy()}: Flink copies every element handed between chained operators
 * when object reuse is off (its default), and Kryo's reflective copy of the row's maps cost more
 * than reading the row.
 */
final class PgRowTypeInfo extends TypeInformation<PgRow> {
    private static final long serialVersionUID = 1L;
    private final GenericTypeInfo<PgRow> generic = new GenericTypeInfo<>(PgRow.class);

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<PgRow> getTypeClass() {
        return PgRow.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<PgRow> createSerializer(SerializerConfig config) {
        return new Serializer(generic.createSerializer(config));
    }

    @Override
    public String toString() {
        return "PgRow";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PgRowTypeInfo;
    }

    @Override
    public int hashCode() {
        return PgRowTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof PgRowTypeInfo;
    }

    /** Kryo's serializer with PgRow's own copy. */
    static final class Serializer extends TypeSerializer<PgRow> {
        private static final long serialVersionUID = 1L;
        private final TypeSerializer<PgRow> kryo;

        Serializer(TypeSerializer<PgRow> kryo) {
            this.kryo = kryo;
        }

        @Override
        public boolean isImmutableType() {
            return false;
        }

        @Override
        public TypeSerializer<PgRow> duplicate() {
            TypeSerializer<PgRow> d = kryo.duplicate();
            return d == kryo ? this : new Serializer(d);
        }

        @Override
        public PgRow createInstance() {
            return new PgRow();
        }

        @Override
        public PgRow copy(PgRow from) {
            if (from == null) return null;
            PgRow c = from.deepCopy();
            return c != null ? c : kryo.copy(from);
        }

        @Override
        public PgRow copy(PgRow from, PgRow reuse) {
            return copy(from);
        }

        @Override
        public int getLength() {
            return -1;
        }

        @Override
        public void serialize(PgRow record, DataOutputView target) throws IOException {
            kryo.serialize(record, target);
        }

        @Override
        public PgRow deserialize(DataInputView source) throws IOException {
            return kryo.deserialize(source);
        }

        @Override
        public PgRow deserialize(PgRow reuse, DataInputView source) throws IOException {
            return kryo.deserialize(reuse, source);
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            kryo.copy(source, target);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Serializer s && s.kryo.equals(kryo);
        }

        @Override
        public int hashCode() {
            return kryo.hashCode();
        }

        @Override
        public TypeSerializerSnapshot<PgRow> snapshotConfiguration() {
            return kryo.snapshotConfiguration();
        }
    }
}
