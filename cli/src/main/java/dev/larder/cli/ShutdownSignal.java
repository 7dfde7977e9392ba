package dev.larder.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into an orderly return from {@code serve}, so the process drains, closes the store and
 * exits 0. A JVM shutdown hook could not do that: the exit status after a signal would be 143/130.
 */
final class ShutdownSignal {

    private final CountDownLatch received = new CountDownLatch(1);
    private final AtomicReference<String> name = new AtomicReference<>();

    private ShutdownSignal() {
    }

    static ShutdownSignal install() {
        ShutdownSignal signal = new ShutdownSignal();
        for (String sig : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(sig), s -> {
                signal.name.compareAndSet(null, "SIG" + s.getName());
                signal.received.countDown();
            });
        }
        return signal;
    }

    /** Blocks until a signal arrives; returns its name. */
    String await() {
        boolean interrupted = false;
        while (true) {
            try {
                received.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return name.get();
    }
}
