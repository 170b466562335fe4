package io.pgrepl.kafka.connect.records;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * A nested struct ({@code before}, {@code after}, {@code source}) whose every value was already
 * checked against its field's schema by {@link Struct#put(org.apache.kafka.connect.data.Field, Object)}.
 * Putting it into the envelope would check each value a second time ({@code ConnectSchema.validateValue}
 * calls {@code validate()} on a nested struct); that second pass was a tenth of the task thread's
 * samples, so it is skipped here. A field left unset that the schema requires is still refused
 * where the record is converted (the converters check for required nulls as they write).
 */
public class CheckedStruct extends Struct {
    public CheckedStruct(Schema schema) {
        super(schema);
    }

    @Override
    public void validate() {
        // each value was checked when it was put
    }
}
