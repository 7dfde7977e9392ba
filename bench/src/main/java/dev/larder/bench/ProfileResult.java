package dev.larder.bench;

import java.nio.file.Path;

/**
 * One flame graph asked of the server's admin endpoint during a measured window.
 *
 * @param event   cpu, alloc, lock or wall
 * @param seconds how long it profiled
 * @param file    where the HTML was saved, or {@code null} if it could not be had
 * @param error   why not ("profile unavailable: ..."), or {@code null}
 */
public record ProfileResult(String event, int seconds, Path file, String error) {

    public boolean ok() {
        return file != null;
    }
}
