package io.pgrepl.flink.internal;

import io.pgrepl.flink.TableName;
import java.util.List;

/** A key of a table, as texts: what removals are held by. */
record HeldKey(TableName table, List<String> key) {}
