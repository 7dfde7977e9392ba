package dev.larder.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Everything one writer was told about one key since the key's state was last read back: the state then, each
 * acknowledged PUT or DELETE in order with the time its acknowledgement arrived, and the request in flight, if any.
 * Only its own writer thread changes it; the checker reads it once that thread has ended.
 */
final class KeyHistory {

    /** One acknowledged write: {@code value} null for a DELETE. */
    record Ack(byte[] value, long sentNanos, long ackNanos) {
    }

    /**
     * How a value read back after a cut relates to this history.
     *
     * @param oldestLostAckNanos when the first lost write was acknowledged; {@link Long#MAX_VALUE} if none was lost
     * @param survivorSentNanos  the earliest send time the surviving state can have come from; {@link Long#MIN_VALUE}
     *                           when it may be the state before this round
     */
    record Outcome(int lostPuts, int lostDeletes, long oldestLostAckNanos, long survivorSentNanos,
                   boolean unexplained, String description) {

        int lost() {
            return lostPuts + lostDeletes;
        }
    }

    private byte[] base;                    // null: absent
    private final List<Ack> acks = new ArrayList<>();
    private boolean pending;
    private byte[] pendingValue;
    private long pendingSentNanos;

    void sending(byte[] value, long sentNanos) {
        pending = true;
        pendingValue = value;
        pendingSentNanos = sentNanos;
    }

    void acknowledged(long ackNanos) {
        acks.add(new Ack(pendingValue, pendingSentNanos, ackNanos));
        pending = false;
        pendingValue = null;
    }

    boolean pending() {
        return pending;
    }

    int acknowledgedCount() {
        return acks.size();
    }

    /**
     * Matches what was read after a cut against the history. The last acknowledged state, or the write in flight,
     * loses nothing. An older acknowledged state loses every acknowledgement after it. A value can repeat (absent
     * after several DELETEs): the loss is counted from the newest match, a lower bound, and the survivor's send time
     * from the oldest, so neither can invent a loss or a hole. A value never acknowledged nor in flight is
     * unexplained.
     */
    Outcome explain(byte[] seen) {
        int n = acks.size();
        boolean inFlightSurvived = pending && Arrays.equals(seen, pendingValue);
        int newest = inFlightSurvived ? n : -2;
        int oldest = inFlightSurvived ? n : Integer.MAX_VALUE;
        for (int i = -1; i < n; i++) {
            if (Arrays.equals(seen, stateAfter(i))) {
                newest = Math.max(newest, i);
                oldest = Math.min(oldest, i);
            }
        }
        if (newest == -2) {
            return new Outcome(0, 0, Long.MAX_VALUE, Long.MIN_VALUE, true, "read " + describe(seen)
                    + ", which was never acknowledged nor in flight (last acknowledged " + describe(stateAfter(n - 1))
                    + ")");
        }
        long survivorSent = oldest == -1 ? Long.MIN_VALUE : oldest == n ? pendingSentNanos : acks.get(oldest).sentNanos();
        if (newest >= n - 1) {
            return new Outcome(0, 0, Long.MAX_VALUE, survivorSent, false, "");
        }
        int puts = 0;
        int deletes = 0;
        for (Ack lost : acks.subList(newest + 1, n)) {
            if (lost.value() == null) {
                deletes++;
            } else {
                puts++;
            }
        }
        return new Outcome(puts, deletes, acks.get(newest + 1).ackNanos(), survivorSent, false,
                "acknowledged " + describe(stateAfter(n - 1)) + " but read " + describe(seen) + ", the state "
                        + (n - 1 - newest) + " acknowledged write(s) earlier"
                        + (stateAfter(n - 1) == null && seen != null ? " (a deleted key came back)" : ""));
    }

    /** After a read-back, what was read is the durable starting point for the next round. */
    void reset(byte[] seen) {
        base = seen;
        acks.clear();
        pending = false;
        pendingValue = null;
    }

    private byte[] stateAfter(int index) {
        return index < 0 ? base : acks.get(index).value();
    }

    static String describe(byte[] value) {
        if (value == null) {
            return "<absent>";
        }
        String hex = HexFormat.of().formatHex(value, 0, Math.min(8, value.length));
        return value.length + " bytes [" + hex + (value.length > 8 ? "..." : "") + "]";
    }
}
