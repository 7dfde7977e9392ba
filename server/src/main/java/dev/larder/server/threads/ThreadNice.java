package dev.larder.server.threads;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * The nice value of one Linux thread, read and raised by its id: Java has no call that takes a thread id, and on Linux
 * {@code getpriority(2)} and {@code setpriority(2)} take one where they take a process id.
 *
 * <p>Nice only goes up here. Lowering it raises the thread's priority, which the kernel refuses a process without
 * {@code CAP_SYS_NICE}, and a server started under {@code nice -n 15} means its threads to stay at 15 or above.
 */
public final class ThreadNice {

    /** The highest nice value Linux has (the lowest priority). */
    public static final int MAX = 19;
    /** The calling thread (who = 0 is the thread, not the process). */
    public static final int CURRENT = 0;
    private static final int PRIO_PROCESS = 0;

    private ThreadNice() {
    }

    /**
     * The nice value of thread {@code tid} (of any process). Not checked: -1 is a nice value as well as the error, and
     * glibc turns the kernel's 40-nice back into the nice value.
     */
    public static int of(int tid) {
        return LibC.INSTANCE.getpriority(PRIO_PROCESS, tid);
    }

    /**
     * Puts thread {@code tid} at nice {@code nice} unless it already runs there or higher.
     *
     * @return the nice value it runs at now: {@code nice}, or its own where that was higher
     * @throws LastErrorException when the kernel refuses (the thread ended, another user's thread)
     */
    public static int atLeast(int tid, int nice) {
        int own = of(tid);
        if (own >= nice) {
            return own;
        }
        LibC.INSTANCE.setpriority(PRIO_PROCESS, tid, nice);
        return nice;
    }

    private interface LibC extends Library {
        LibC INSTANCE = Native.load("c", LibC.class);

        int getpriority(int which, int who);

        int setpriority(int which, int who, int prio) throws LastErrorException;
    }
}
