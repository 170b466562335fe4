/**
 * Column values from text or binary form to Java types: {@link io.pgrepl.codec.value.PgValues}.
 * Text parsing assumes DateStyle ISO and IntervalStyle postgres, which the client sets.
 */
package io.pgrepl.codec.value;
