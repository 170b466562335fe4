package io.pgrepl.flink;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A changelog of {@link RowDigest}s applied in order, as a table of key to row digest and version,
 * in flat arrays (open addressing, linear probing, deletion by backward shift): a million keys
 * take about 50 MB rather than the half gigabyte of a map of boxed keys to row maps.
 *
 * <p>Applying checks each change against what is there: a read or insert finds its key absent; an
 * update or delete finds its old key present holding exactly the old row it carries (REPLICA
 * IDENTITY FULL sends the whole old row, so a retraction must retract the row the changelog built);
 * an update's version is newer than the row it replaces. The first anomalies are kept for the
 * failure message.
 */
final class DigestTable {
    private static final long EMPTY = Long.MIN_VALUE;
    private long[] keys;
    private long[] digests;
    private long[] versions;
    private int size;

    long reads;
    long inserts;
    long updates;
    long keyChanges;
    long deletes;
    final List<String> anomalies = new ArrayList<>();
    /** The latest text a stream change gave each key it touched (null after a delete), for failure messages. */
    final Map<Long, String> streamTexts = new HashMap<>();

    DigestTable(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        allocate(cap);
    }

    private void allocate(int cap) {
        keys = new long[cap];
        digests = new long[cap];
        versions = new long[cap];
        java.util.Arrays.fill(keys, EMPTY);
    }

    int size() {
        return size;
    }

    void apply(RowDigest c) {
        switch (c.op) {
            case "READ" -> {
                reads++;
                if (contains(c.newKey)) anomaly("a snapshot row of a key already present", c);
                put(c.newKey, c.newDigest, c.n);
            }
            case "INSERT" -> {
                inserts++;
                if (contains(c.newKey)) anomaly("an insert of a key already present", c);
                put(c.newKey, c.newDigest, c.n);
                streamTexts.put(c.newKey, c.text);
            }
            case "UPDATE" -> {
                updates++;
                if (c.oldKey != c.newKey) keyChanges++;
                int at = slot(c.oldKey);
                if (keys[at] == EMPTY) {
                    anomaly("an update of a key not present", c);
                } else {
                    if (digests[at] != c.oldDigest) anomaly("an update whose old row differs from the row there", c);
                    if (c.n <= versions[at]) anomaly("an update older than the row there (version " + versions[at] + ")", c);
                    if (c.oldKey != c.newKey) remove(c.oldKey);
                }
                if (c.oldKey != c.newKey) {
                    if (contains(c.newKey)) anomaly("an update to a key already present", c);
                    streamTexts.put(c.oldKey, null);
                }
                put(c.newKey, c.newDigest, c.n);
                streamTexts.put(c.newKey, c.text);
            }
            case "DELETE" -> {
                deletes++;
                int at = slot(c.oldKey);
                if (keys[at] == EMPTY) {
                    anomaly("a delete of a key not present", c);
                } else {
                    if (digests[at] != c.oldDigest) anomaly("a delete whose old row differs from the row there", c);
                    remove(c.oldKey);
                }
                streamTexts.put(c.oldKey, null);
            }
            default -> throw new AssertionError(c.op);
        }
    }

    private void anomaly(String what, RowDigest c) {
        if (anomalies.size() < 20) anomalies.add(what + ": " + c);
    }

    boolean contains(long key) {
        return keys[slot(key)] != EMPTY;
    }

    /** {@return the digest held for {@code key}; only when {@link #contains} } */
    long digest(long key) {
        return digests[slot(key)];
    }

    /** Calls {@code each} with every key held. */
    void forEachKey(java.util.function.LongConsumer each) {
        for (long k : keys) if (k != EMPTY) each.accept(k);
    }

    private static int mix(long key) {
        long h = key * 0x9e3779b97f4a7c15L;
        return (int) (h ^ (h >>> 32));
    }

    /** The slot holding {@code key}, or the empty slot where it would go. */
    private int slot(long key) {
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (keys[i] != EMPTY && keys[i] != key) i = (i + 1) & mask;
        return i;
    }

    private void put(long key, long digest, long version) {
        if (key == EMPTY) throw new IllegalArgumentException("key " + key + " is the empty marker");
        int at = slot(key);
        if (keys[at] == EMPTY) {
            if ((size + 1) * 2 > keys.length) {
                grow();
                at = slot(key);
            }
            keys[at] = key;
            size++;
        }
        digests[at] = digest;
        versions[at] = version;
    }

    private void grow() {
        long[] k = keys;
        long[] d = digests;
        long[] v = versions;
        allocate(k.length * 2);
        for (int i = 0; i < k.length; i++) {
            if (k[i] == EMPTY) continue;
            int at = slot(k[i]);
            keys[at] = k[i];
            digests[at] = d[i];
            versions[at] = v[i];
        }
    }

    private void remove(long key) {
        int mask = keys.length - 1;
        int hole = slot(key);
        if (keys[hole] == EMPTY) return;
        size--;
        // Backward shift: move later entries of the probe run into the hole when their home lies at or before it.
        int i = hole;
        while (true) {
            i = (i + 1) & mask;
            if (keys[i] == EMPTY) break;
            int home = mix(keys[i]) & mask;
            boolean between = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
            if (between) continue;
            keys[hole] = keys[i];
            digests[hole] = digests[i];
            versions[hole] = versions[i];
            hole = i;
        }
        keys[hole] = EMPTY;
    }
}
