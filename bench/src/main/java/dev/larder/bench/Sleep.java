package dev.larder.bench;

/** Waiting between steps of a run, where an interrupt means the run is being stopped. */
final class Sleep {

    private Sleep() {
    }

    /** Sleeps {@code millis}; an interrupt is kept on the thread and ends the run as a {@link BenchException}. */
    static void millis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchException("interrupted", e);
        }
    }
}
