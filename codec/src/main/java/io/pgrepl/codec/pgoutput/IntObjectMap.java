package io.pgrepl.codec.pgoutput;

import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * Open-addressing map from {@code int} keys (OIDs) to objects, so the per-row relation lookup
 * never boxes an {@code Integer}. Linear probing; capacity is a power of two kept below 50% full.
 * Not thread-safe: one per stream, used from the stream's event loop.
 *
 * @param <V> the value type
 */
final class IntObjectMap<V> {
    private int[] keys;
    private Object[] values;
    private int size;
    private int mask;

    /** An empty map sized for 16 entries. */
    public IntObjectMap() {
        this(16);
    }

    /**
     * An empty map sized so that {@code expected} entries fit without growing.
     *
     * @param expected the number of entries expected
     */
    public IntObjectMap(int expected) {
        int cap = Integer.highestOneBit(Math.max(4, expected) * 2 - 1) << 1;
        keys = new int[cap];
        values = new Object[cap];
        mask = cap - 1;
    }

    private static int hash(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /**
     * The value stored under {@code key}.
     *
     * @param key the key, e.g. a relation OID
     * @return the value, or null if none
     */
    @SuppressWarnings("unchecked")
    public V get(int key) {
        int i = hash(key) & mask;
        while (true) {
            Object v = values[i];
            if (v == null) return null;
            if (keys[i] == key) return (V) v;
            i = (i + 1) & mask;
        }
    }

    /**
     * Stores {@code value} (non-null) under {@code key}; returns the previous value or null.
     *
     * @param key   the key, e.g. a relation OID
     * @param value the value; must not be null
     * @return the previous value, or null if none
     * @throws NullPointerException if {@code value} is null
     */
    @SuppressWarnings("unchecked")
    public V put(int key, V value) {
        if (value == null) throw new NullPointerException("value");
        int i = hash(key) & mask;
        while (true) {
            Object v = values[i];
            if (v == null) {
                keys[i] = key;
                values[i] = value;
                if (++size * 2 > keys.length) grow();
                return null;
            }
            if (keys[i] == key) {
                values[i] = value;
                return (V) v;
            }
            i = (i + 1) & mask;
        }
    }

    /**
     * Removes {@code key}; returns the removed value or null.
     *
     * @param key the key
     * @return the removed value, or null if none
     */
    @SuppressWarnings("unchecked")
    public V remove(int key) {
        int i = hash(key) & mask;
        while (values[i] != null) {
            if (keys[i] == key) {
                V old = (V) values[i];
                values[i] = null;
                size--;
                // Re-insert the rest of the probe run so later lookups don't stop at the hole.
                int j = (i + 1) & mask;
                while (values[j] != null) {
                    int k = keys[j];
                    Object v = values[j];
                    values[j] = null;
                    size--;
                    put(k, (V) v);
                    j = (j + 1) & mask;
                }
                return old;
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    /**
     * The value under {@code key}, created by {@code factory} and stored if absent.
     *
     * @param key     the key
     * @param factory makes the value from the key; must not return null
     * @return the existing or new value
     */
    public V computeIfAbsent(int key, IntFunction<V> factory) {
        V v = get(key);
        if (v == null) {
            v = factory.apply(key);
            put(key, v);
        }
        return v;
    }

    /**
     * Number of entries.
     *
     * @return the entry count
     */
    public int size() {
        return size;
    }

    /**
     * Whether the map has no entries.
     *
     * @return true if empty
     */
    public boolean isEmpty() {
        return size == 0;
    }

    /** Removes every entry; the capacity is kept. */
    public void clear() {
        Arrays.fill(values, null);
        size = 0;
    }

    /**
     * Calls {@code action} for each entry, in no particular order.
     *
     * @param action called with each key and value; must not change the map
     */
    @SuppressWarnings("unchecked")
    public void forEach(Entry<? super V> action) {
        for (int i = 0; i < keys.length; i++) {
            if (values[i] != null) action.accept(keys[i], (V) values[i]);
        }
    }

    /**
     * Receives one entry in {@link #forEach}.
     *
     * @param <V> the value type
     */
    @FunctionalInterface
    public interface Entry<V> {
        /**
         * Called for one entry.
         *
         * @param key   the key
         * @param value the value, never null
         */
        void accept(int key, V value);
    }

    @SuppressWarnings("unchecked")
    private void grow() {
        int[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        values = new Object[oldValues.length * 2];
        mask = keys.length - 1;
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) put(oldKeys[i], (V) oldValues[i]);
        }
    }
}
