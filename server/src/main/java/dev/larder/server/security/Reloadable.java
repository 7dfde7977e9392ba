package dev.larder.server.security;

import java.nio.file.Path;
import java.util.List;

/** Something read from files that can be read again while serving (certificates, token lists). */
public interface Reloadable {

    /** The files it was read from, watched for changes. */
    List<Path> files();

    /**
     * Reads the files again and, only when they are valid, serves from them from now on.
     *
     * @throws IllegalArgumentException with a one-line reason when they are not (what was loaded before stays)
     */
    void reload();
}
