package dev.larder.bench;

/**
 * When each phase of a run starts and how often each connection sends during it. A run is a sequence of phases on
 * the same connections (warm-up then measured window, or the tail benchmark's PUT, GET, mix ... phases), so the
 * latency stays continuous across a switch: requests due before a switch are still owed after it. Immutable, shared
 * by every connection.
 */
final class Schedule {

    private final long[] starts;
    private final double[] intervals;

    /**
     * @param starts    absolute {@link System#nanoTime()} of each phase's start, then the end of the last phase
     *                  (one more element than {@code intervals}); ascending
     * @param intervals per phase, nanoseconds between two requests of one connection; 0 = closed loop
     */
    Schedule(long[] starts, double[] intervals) {
        if (starts.length != intervals.length + 1 || intervals.length == 0) {
            throw new IllegalArgumentException("schedule: " + intervals.length + " phases need "
                    + (intervals.length + 1) + " bounds, got " + starts.length);
        }
        this.starts = starts.clone();
        this.intervals = intervals.clone();
    }

    int phases() {
        return intervals.length;
    }

    long start(int phase) {
        return starts[phase];
    }

    long end(int phase) {
        return starts[phase + 1];
    }

    double interval(int phase) {
        return intervals[phase];
    }
}
