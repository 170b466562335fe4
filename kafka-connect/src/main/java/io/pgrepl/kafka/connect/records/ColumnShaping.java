package io.pgrepl.kafka.connect.records;

import io.pgrepl.kafka.connect.settings.TableShape;
import io.pgrepl.kafka.connect.values.ColumnDefaults;
import io.pgrepl.kafka.connect.values.ValueConverters;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * The column settings' stage on a converted column: its value goes through the mask, hash or
 * truncation after conversion (so every path that converts a value, the COPY snapshot's reads,
 * incremental reads, the stream and reselected values, gets it), and its field schema gets the
 * settings' parameters.
 */
public final class ColumnShaping {
    private ColumnShaping() {}

    public static ValueConverters.Column apply(ValueConverters.Column c, TableShape shape, int i) {
        UnaryOperator<Object> f = shape.transform(i);
        Map<String, String> params = shape.parameters(i);
        if (f == null && params.isEmpty()) return c;
        Function<Object, Object> convert = f == null ? c.convert() : c.convert().andThen(f);
        Schema schema = withParameters(c.schema(), params);
        if (schema != c.schema() && schema.type() == Schema.Type.STRUCT) {
            // The converter builds structs of its own schema (VariableScaleDecimal): moved into the one with the parameters.
            convert = convert.andThen(v -> v instanceof Struct s ? moved(s, schema) : v);
        }
        return new ValueConverters.Column(c.name(), c.typeOid(), schema, convert);
    }

    private static Struct moved(Struct from, Schema to) {
        Struct s = new Struct(to);
        for (Field f : from.schema().fields()) s.put(f.name(), from.get(f));
        return s;
    }

    /** {@code s} with {@code params} added (Connect schemas are immutable: rebuilt as they are). */
    public static Schema withParameters(Schema s, Map<String, String> params) {
        if (params.isEmpty()) return s;
        SchemaBuilder b = ColumnDefaults.rebuild(s).parameters(params);
        if (s.defaultValue() != null) b.defaultValue(s.defaultValue());
        return b.build();
    }
}
