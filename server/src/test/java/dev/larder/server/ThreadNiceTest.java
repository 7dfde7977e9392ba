package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.larder.server.threads.ThreadNice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link ThreadNice} reads and raises another thread's nice value by its id, as {@code /proc/thread-self/stat} on that
 * thread reports it, and never lowers it.
 */
class ThreadNiceTest {

    @Test
    void raisesAnotherThreadsNiceByItsIdAndNeverLowersIt() throws Exception {
        CompletableFuture<Integer> tid = new CompletableFuture<>();
        CountDownLatch checked = new CountDownLatch(1);
        CompletableFuture<Integer> niceSeenByItself = new CompletableFuture<>();
        // A thread of its own: the test's thread (and the ones it starts later) must not be reniced.
        Thread other = new Thread(() -> {
            try {
                // /proc/thread-self is /proc/PID/task/TID.
                tid.complete(Integer.parseInt(Files.readSymbolicLink(Path.of("/proc/thread-self"))
                        .getFileName().toString()));
                checked.await();
                niceSeenByItself.complete(OwnSlice.nice());
            } catch (Exception e) {
                tid.completeExceptionally(e);
                niceSeenByItself.completeExceptionally(e);
            }
        }, "thread-nice-test");
        other.start();
        try {
            int id = tid.get(10, TimeUnit.SECONDS);
            int own = ThreadNice.of(ThreadNice.CURRENT);
            assumeTrue(own <= 15, "the test JVM runs at nice " + own);
            assertEquals(own, ThreadNice.of(id), "a new thread starts at its creator's nice");

            assertEquals(own + 3, ThreadNice.atLeast(id, own + 3));
            assertEquals(own + 3, ThreadNice.of(id));
            assertEquals(own + 3, ThreadNice.atLeast(id, own + 1), "lowered it");
            assertEquals(own + 3, ThreadNice.of(id));
            assertEquals(own, ThreadNice.of(ThreadNice.CURRENT), "reniced the caller, not the thread by its id");
        } finally {
            checked.countDown();
        }
        assertEquals(ThreadNice.of(ThreadNice.CURRENT) + 3, niceSeenByItself.get(10, TimeUnit.SECONDS),
                "the kernel's own report on that thread");
        other.join();
    }

    @Test
    void aThreadThatIsGoneIsAnError() {
        // Above any pid_max the kernel allows (2^22): no such thread.
        assertThrows(RuntimeException.class, () -> ThreadNice.atLeast(1 << 23, 5));
    }
}
