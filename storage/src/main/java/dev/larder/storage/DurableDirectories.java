package dev.larder.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Creates the data directory so that a power cut cannot take it back. A new directory's entry lives in its parent,
 * and only an fsync of the parent makes it durable; RocksDB syncs the data directory itself, never its parent. Found
 * by {@code PowerCutIT}: without this, a cut soon after the first start lost the whole database, acknowledged
 * {@code --sync} writes included.
 */
final class DurableDirectories {

    private DurableDirectories() {
    }

    /**
     * Creates {@code dir} and any missing parents, then fsyncs the parent of each directory created. The parent of
     * an existing {@code dir} is fsynced too, but only as far as it can be: an operator's {@code mkdir} just before
     * is no more durable than ours, yet a read-only parent (a container's root above its data volume) must not stop
     * a store whose directory entry is long on disk.
     */
    static void create(Path dir) throws IOException {
        Path target = dir.toAbsolutePath().normalize();
        List<Path> created = new ArrayList<>();
        for (Path p = target; p != null && !Files.isDirectory(p); p = p.getParent()) {
            created.add(p);
        }
        Files.createDirectories(target);
        for (Path p : created) {
            if (p.getParent() != null) {
                fsync(p.getParent());
            }
        }
        if (created.isEmpty() && target.getParent() != null) {
            try {
                fsync(target.getParent());
            } catch (IOException e) {
                // see above: best effort for a directory someone else created
            }
        }
    }

    /** On Linux a directory opened for reading can be fsynced, which makes its entries durable. */
    static void fsync(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
