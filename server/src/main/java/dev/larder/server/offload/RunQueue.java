package dev.larder.server.offload;

import java.util.AbstractQueue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A worker's bounded task queue that can take several tasks before waking the worker. With a plain
 * {@code LinkedBlockingQueue} the first task of an event loop's batch wakes the worker, which on a shared core
 * preempts the loop and leaves with a run of one; here the loop offers its batch quietly and wakes the worker once.
 *
 * <p>One lock: every critical section is a few field updates, and producers pay it once per task, the worker once
 * per task it takes. The size is also kept in a volatile field, so that an event loop choosing among workers
 * ({@link WorkerChoice}) reads every worker's queue without taking its lock.
 */
final class RunQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {

    private final int capacity;
    private final ArrayDeque<Runnable> tasks;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private int waiting;
    /** {@code tasks.size()}, written under the lock after each change. */
    private volatile int count;

    RunQueue(int capacity) {
        this.capacity = capacity;
        this.tasks = new ArrayDeque<>(Math.min(capacity, 1024));
    }

    /** Queues {@code task} without waking the worker; the caller must call {@link #wakeIfWaiting()} after. */
    boolean offerQuietly(Runnable task) {
        return offer(task, false);
    }

    /** Wakes the worker if it waits and there is something to take. */
    void wakeIfWaiting() {
        lock.lock();
        try {
            if (waiting > 0 && !tasks.isEmpty()) {
                notEmpty.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether a thread waits in {@link #take()} or a timed {@link #poll}; for tests. */
    boolean hasWaiters() {
        lock.lock();
        try {
            return waiting > 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean offer(Runnable task) {
        return offer(task, true);
    }

    private boolean offer(Runnable task, boolean wake) {
        lock.lock();
        try {
            if (tasks.size() >= capacity) {
                return false;
            }
            tasks.addLast(task);
            count = tasks.size();
            if (wake && waiting > 0) {
                notEmpty.signal();
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean offer(Runnable task, long timeout, TimeUnit unit) {
        // Only ever called by code that must not block the caller (event loops): same as offer.
        return offer(task);
    }

    @Override
    public void put(Runnable task) {
        if (!offer(task)) {
            throw new IllegalStateException("queue full");
        }
    }

    @Override
    public Runnable take() throws InterruptedException {
        return poll(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
    }

    @Override
    public Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (tasks.isEmpty()) {
                if (nanos <= 0) {
                    return null;
                }
                waiting++;
                try {
                    // Long.MAX_VALUE (take) is 292 years: it only returns on a signal or an interrupt.
                    nanos = notEmpty.awaitNanos(nanos);
                } finally {
                    waiting--;
                }
            }
            return takeFirst();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Runnable poll() {
        lock.lock();
        try {
            return takeFirst();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Runnable peek() {
        lock.lock();
        try {
            return tasks.peekFirst();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean remove(Object task) {
        lock.lock();
        try {
            boolean removed = tasks.remove(task);
            count = tasks.size();
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /** A snapshot, read without the lock. */
    @Override
    public int size() {
        return count;
    }

    int capacity() {
        return capacity;
    }

    @Override
    public int remainingCapacity() {
        return capacity - count;
    }

    @Override
    public int drainTo(Collection<? super Runnable> into) {
        return drainTo(into, Integer.MAX_VALUE);
    }

    @Override
    public int drainTo(Collection<? super Runnable> into, int max) {
        lock.lock();
        try {
            int n = 0;
            while (n < max && !tasks.isEmpty()) {
                into.add(takeFirst());
                n++;
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Call with the lock held. */
    private Runnable takeFirst() {
        Runnable task = tasks.pollFirst();
        count = tasks.size();
        return task;
    }

    /** A snapshot: the queue may change while it is walked. */
    @Override
    public Iterator<Runnable> iterator() {
        lock.lock();
        try {
            return new ArrayList<>(tasks).iterator();
        } finally {
            lock.unlock();
        }
    }
}
