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
 * any, is younger than {@link #HELD_UP}. A worker in the middle of a short run counts as free because it takes the
 * stretch as soon as the run ends, with no wake-up: on a core it shares with the loop that is sooner than a parked
 * worker would start. When none is free: the fewest queued among those not held up (a read from disk, a stalled
 * write) that have room for the whole stretch, then the fewest queued among any with room, so calls of other
 * connections wait behind a held-up worker only when every other worker is held up or full. When no worker has room
 * for the whole stretch it is cut to what the one with the most room takes ({@link #granted()}) and the rest is
 * placed by the next call: a worker's queue holds as little as {@code --queue-size} 16, one stretch, and without the
 * cut a stretch sent to a worker with two queued got two 503s while another worker had room. When no worker has any
 * room the stretch goes whole to the fewest queued, and the rejection mode answers what does not fit. Confined to its
 * event loop's thread.
 */
final class WorkerChoice {

    /** A run of 16 calls from memory takes well under this; a worker still in its run after it is held up. */
    static final long HELD_UP = TimeUnit.MICROSECONDS.toNanos(500);

    private final Worker[] workers;
    private final int first;
    private final int[] placed;
    private int granted;

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

    /**
     * The worker for the next {@code tasks} calls of this hand-over, or for the first {@link #granted()} of them when
     * no worker has room for all; it counts them as queued on it.
     */
    Worker next(int tasks) {
        long now = System.nanoTime();
        int free = -1;
        int ready = -1;
        int roomiest = -1;
        int readyLoad = Integer.MAX_VALUE;
        int mostRoom = Integer.MIN_VALUE;
        for (int k = 0; k < workers.length; k++) {
            int i = (first + k) % workers.length;
            Worker worker = workers[i];
            if (worker.isShuttingDown()) {
                continue;
            }
            // One read of the queue's size: room is what the same queue, so loaded, has left.
            int load = worker.pendingTasks() + placed[i];
            int room = worker.queueCapacity() - load;
            boolean heldUp = worker.runningFor(now) >= HELD_UP;
            if (load == 0 && !heldUp && room >= tasks) {
                free = i;
                break;
            }
            if (room >= tasks && !heldUp && load < readyLoad) {
                ready = i;
                readyLoad = load;
            }
            // Every queue of a group has the same capacity, so the most room is the fewest queued.
            if (room > mostRoom) {
                roomiest = i;
                mostRoom = room;
            }
        }
        int best = free >= 0 ? free : ready >= 0 ? ready : roomiest >= 0 ? roomiest : first;
        granted = free >= 0 || ready >= 0 || mostRoom >= tasks || mostRoom <= 0 ? tasks : mostRoom;
        placed[best] += granted;
        return workers[best];
    }

    /** How many of the calls asked for in the last {@link #next(int)} go to the worker it returned. */
    int granted() {
        return granted;
    }
}
