package dev.larder.server.offload;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Which worker takes the next stretch of one event-loop iteration's GETs, PUTs and DELETEs. A connection has one
 * request at a worker at a time, so these calls need not go to the worker its connection was given: sent to one
 * worker, an iteration's calls are one run (one MultiGet, one write batch) and at most one wake-up, where following
 * each connection's worker split them over every worker, with a wake-up, a park and an answer hand-back each
 * (docs/performance.md, "Session 24").
 *
 * <p>The choice, in this event loop's order of the workers: the first with nothing queued whose run in progress, if
 * any, is younger than {@link #HELD_UP}; else the one with the fewest queued (the first of those). A worker in the
 * middle of a short run counts as free because it takes the stretch as soon as the run ends, with no wake-up: on a
 * core it shares with the loop that is sooner than a parked worker would start. One held up longer (a read from
 * disk, a stalled write) is passed over while another worker is free, so calls of other connections do not wait
 * behind it; when none is free the fewest queued wins, which can be the held-up one (it has nothing queued), so under
 * load a stall can still hold up a stretch of calls. Confined to its event loop's thread.
 */
final class WorkerChoice {

    /** A run of 16 calls from memory takes well under this; a worker still in its run after it is held up. */
    static final long HELD_UP = TimeUnit.MICROSECONDS.toNanos(500);

    private final Worker[] workers;
    private final int first;
    private final int[] placed;

    /** {@code first}: where this event loop starts looking, so that loops do not all prefer the same worker. */
    WorkerChoice(List<Worker> workers, int first) {
        this.workers = workers.toArray(new Worker[0]);
        this.first = Math.floorMod(first, this.workers.length);
        this.placed = new int[this.workers.length];
    }

    /** Starts a new hand-over: what earlier ones placed is in the queues now. */
    void startHandOver() {
        Arrays.fill(placed, 0);
    }

    /** The worker for the next {@code tasks} calls of this hand-over, which counts them as queued on it. */
    Worker next(int tasks) {
        long now = System.nanoTime();
        int best = first;
        long bestLoad = Long.MAX_VALUE;
        for (int k = 0; k < workers.length; k++) {
            int i = (first + k) % workers.length;
            Worker worker = workers[i];
            if (worker.isShuttingDown()) {
                continue;
            }
            long load = worker.pendingTasks() + placed[i];
            if (load == 0 && worker.runningFor(now) < HELD_UP) {
                best = i;
                break;
            }
            if (load < bestLoad) {
                best = i;
                bestLoad = load;
            }
        }
        placed[best] += tasks;
        return workers[best];
    }
}
