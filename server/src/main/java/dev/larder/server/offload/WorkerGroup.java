package dev.larder.server.offload;

import io.netty.util.concurrent.DefaultEventExecutorGroup;
import dev.larder.server.threads.SlicedThreadFactory;
import dev.larder.server.threads.ThreadSlice;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.Executor;

/**
 * The bounded storage worker pool: a {@link DefaultEventExecutorGroup} whose children are {@link Worker}s, each
 * with a queue of at most {@code queueSize} pending requests and the given rejection handler, on threads that set
 * {@code --foreground-slice} on themselves.
 */
final class WorkerGroup extends DefaultEventExecutorGroup {

    WorkerGroup(int workers, int queueSize, RejectedExecutionHandler rejection, ThreadSlice slice) {
        super(workers, new SlicedThreadFactory("larder-worker", slice), queueSize, rejection);
    }

    @Override
    protected EventExecutor newChild(Executor executor, Object... args) {
        return new Worker(this, executor, (Integer) args[0], (RejectedExecutionHandler) args[1]);
    }
}
