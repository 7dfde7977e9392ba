package dev.larder.server.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.config.RejectReason;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How an event loop runs a worker's share itself: like writes as one batch, what would wait left for the worker. */
class QuickRunTest {

    private final List<String> done = new ArrayList<>();

    /** A write ({@code w...}) or a read ({@code r...}) that finishes without waiting unless {@code slow}. */
    private final class Call extends BatchableTask {
        final String name;
        final boolean slow;

        Call(String name, boolean slow) {
            this.name = name;
            this.slow = slow;
        }

        boolean write() {
            return name.startsWith("w");
        }

        @Override
        protected boolean batchesWith(BatchableTask first) {
            return first instanceof Call c && c.write() == write();
        }

        @Override
        protected void executeBatch(List<BatchableTask> batch) {
            throw new AssertionError("the worker's path");
        }

        @Override
        protected boolean executeBatchIfQuick(List<BatchableTask> batch) {
            if (!write() || batch.stream().anyMatch(t -> ((Call) t).slow)) {
                return false;
            }
            done.add(String.join("+", batch.stream().map(t -> ((Call) t).name).toList()));
            return true;
        }

        @Override
        protected boolean executeIfQuick() {
            if (slow) {
                return false;
            }
            done.add(name);
            return true;
        }

        @Override
        protected void execute() {
            done.add(name + "@worker");
        }

        @Override
        protected void rejected(RejectReason reason) {
            done.add(name + "@503");
        }
    }

    private Call call(String name) {
        return new Call(name, false);
    }

    private Call slow(String name) {
        return new Call(name, true);
    }

    @Test
    void likeWritesRunAsOneBatchAndEverythingElseOneAtATime() {
        List<WorkerTask> left = new ArrayList<>();
        int ran = new QuickRun().run(List.of(call("w1"), call("w2"), call("r1"), call("r2"), call("w3")), left);
        assertEquals(5, ran);
        assertEquals(List.of("w1+w2", "r1", "r2", "w3"), done);
        assertEquals(List.of(), left);
    }

    @Test
    void aBatchThatWouldWaitIsLeftWholeAndStillRunsOnTheWorker() {
        List<WorkerTask> left = new ArrayList<>();
        Call w1 = call("w1");
        Call w2 = slow("w2");
        Call r1 = call("r1");
        int ran = new QuickRun().run(List.of(w1, w2, r1), left);
        assertEquals(2, ran, "the batch as a whole would wait; w1 alone need not");
        assertEquals(List.of("w1", "r1"), done);
        assertEquals(List.of(w2), left);
        w2.run();
        assertEquals("w2@worker", done.get(done.size() - 1), "the claim was given back, so the worker runs it");
    }

    @Test
    void aReadThatWouldWaitIsLeftAndTheOthersRun() {
        List<WorkerTask> left = new ArrayList<>();
        Call r2 = slow("r2");
        int ran = new QuickRun().run(List.of(call("r1"), r2, call("r3")), left);
        assertEquals(2, ran);
        assertEquals(List.of("r1", "r3"), done);
        assertEquals(List.of(r2), left);
    }

    @Test
    void aTaskThatRanIsNotRunAgainNorRejected() {
        Call w1 = call("w1");
        Call w2 = call("w2");
        new QuickRun().run(List.of(w1, w2), new ArrayList<>());
        w1.run();
        w2.reject(RejectReason.QUEUE_FULL);
        assertEquals(List.of("w1+w2"), done);
    }
}
