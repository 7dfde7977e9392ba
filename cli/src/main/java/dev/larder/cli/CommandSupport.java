package dev.larder.cli;

import io.netty.util.ResourceLeakDetector;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** What {@code serve} and the {@code bench} and {@code tune} commands do the same way. */
final class CommandSupport {

    private CommandSupport() {
    }

    /**
     * An options builder's refusal ({@code "name: value (expected: ...)"}) as picocli's one-line usage error for
     * {@code --name}, which exits 2.
     */
    static ParameterException invalid(CommandSpec spec, IllegalArgumentException e) {
        return new ParameterException(spec.commandLine(), "--" + e.getMessage());
    }

    /**
     * Turns Netty's leak sampling off unless {@code -Dio.netty.leakDetection.level} asks for it. By default it samples
     * 1 in 128 buffers with a stack trace: about 3% of an event loop's CPU in a profile under load, for buffers that
     * are released by the book (the tests run them under paranoid detection).
     */
    static void leakDetectionOffUnlessAsked() {
        if (System.getProperty("io.netty.leakDetection.level") == null
                && System.getProperty("io.netty.leakDetectionLevel") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }

    /** A UTF-8 print stream onto picocli's writer, for code that prints to a {@link PrintStream}. */
    static PrintStream printStream(PrintWriter w) {
        return new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                w.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                w.write(new String(b, off, len, StandardCharsets.UTF_8));
            }

            @Override
            public void flush() {
                w.flush();
            }
        }, true, StandardCharsets.UTF_8);
    }
}
