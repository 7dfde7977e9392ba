package dev.larder.server.offload;

import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * Answers a worker produced, grouped by the event loop that must write them, handed over in one task per loop.
 * Confined to its worker's thread. There are only a few event loops, so a list scan beats a map.
 */
final class CompletionBatch {

    private final List<EventExecutor> loops = new ArrayList<>(4);
    private final List<List<Runnable>> answers = new ArrayList<>(4);
    private int pending;

    void add(EventExecutor loop, Runnable answer) {
        for (int i = 0; i < loops.size(); i++) {
            if (loops.get(i) == loop) {
                answers.get(i).add(answer);
                pending++;
                return;
            }
        }
        loops.add(loop);
        List<Runnable> list = new ArrayList<>(16);
        list.add(answer);
        answers.add(list);
        pending++;
    }

    void flush() {
        if (pending == 0) {
            return;
        }
        for (int i = 0; i < loops.size(); i++) {
            List<Runnable> list = answers.get(i);
            if (list.isEmpty()) {
                continue;
            }
            Runnable[] batch = list.toArray(new Runnable[0]);
            list.clear();
            Runnable all = () -> {
                for (Runnable answer : batch) {
                    answer.run();
                }
            };
            try {
                loops.get(i).execute(all);
            } catch (RejectedExecutionException e) {
                // The event loop is gone, and its connections with it: run the answers here so each releases
                // its response (they see an inactive channel and write nothing).
                all.run();
            }
        }
        pending = 0;
    }
}
