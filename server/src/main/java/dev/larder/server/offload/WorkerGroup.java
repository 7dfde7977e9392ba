package dev.larder.server.offload;

import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.Executor;

/**
 * The bounded storage worker pool: a {@link DefaultEventExecutorGroup} whose children are {@link Worker}s, each
 * with a queue of at most {@code queueSize} pending requests and the given rejection handler.
 */
final class WorkerGroup extends DefaultEventExecutorGroup {

    WorkerGroup(int workers, int queueSize, RejectedExecutionHandler rejection) {
        super(workers, new DefaultThreadFactory("larder-worker", true), queueSize, rejection);
    }

    @Override
    protected EventExecutor newChild(Executor executor, Object... args) {
        return new Worker(this, executor, (Integer) args[0], (RejectedExecutionHandler) args[1]);
    }
}
