package dev.larder.server.offload;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs on an event loop what it can of one worker's share of an iteration, grouped as the worker would group it:
 * each stretch of like writes as one storage batch (one log append), anything else one task at a time. A group
 * that cannot finish without waiting (a write stall, a read from disk) is left for the worker. Confined to the
 * calling thread; the tasks were never handed to anyone.
 */
final class QuickRun {

    private final List<BatchableTask> group = new ArrayList<>();

    /**
     * Runs what is quick of {@code share}, in order, and moves the rest into {@code left} (cleared first) for the
     * worker; returns how many ran. The share's tasks come from different connections (one request of a connection
     * is at a worker at a time), so running some and handing over others keeps every connection's order.
     */
    int run(List<WorkerTask> share, List<WorkerTask> left) {
        left.clear();
        int ran = 0;
        for (WorkerTask task : share) {
            if (task instanceof BatchableTask call) {
                if (!group.isEmpty() && !call.batchesWith(group.get(0))) {
                    ran += flush(left);
                }
                group.add(call);
                continue;
            }
            ran += flush(left);
            if (task.runIfQuick()) {
                ran++;
            } else {
                left.add(task);
            }
        }
        return ran + flush(left);
    }

    private int flush(List<WorkerTask> left) {
        try {
            if (group.isEmpty()) {
                return 0;
            }
            if (group.size() > 1 && group.get(0).runBatchIfQuick(group)) {
                return group.size();
            }
            int ran = 0;
            for (BatchableTask task : group) {
                if (task.runIfQuick()) {
                    ran++;
                } else {
                    left.add(task);
                }
            }
            return ran;
        } finally {
            group.clear();
        }
    }
}
