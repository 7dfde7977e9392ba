package dev.larder.server.security;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * The bearer tokens a listener accepts: one per line of a file (blank lines and lines starting with {@code #}
 * skipped), so a new token can be added before the old one is removed. Only their SHA-256 digests are kept.
 *
 * <p>A presented token is hashed and compared with every accepted digest with {@link MessageDigest#isEqual}, all of
 * them every time: how long the check takes says nothing about how much of a token was right, nor about its length.
 */
public final class TokenFile implements Reloadable {

    /** Shorter tokens are refused at start: they could be guessed over the network. */
    public static final int MIN_LENGTH = 16;

    private final Path file;
    private volatile List<byte[]> digests;

    private TokenFile(Path file, List<byte[]> digests) {
        this.file = file;
        this.digests = digests;
    }

    /**
     * Reads {@code file}.
     *
     * @throws IllegalArgumentException with a one-line reason when it is unreadable, holds no token, or a token is
     *                                  shorter than {@link #MIN_LENGTH} or contains whitespace
     */
    public static TokenFile load(Path file) {
        return new TokenFile(file, read(file));
    }

    private static List<byte[]> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(file + ": cannot read (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        }
        List<byte[]> digests = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String token = lines.get(i).strip();
            if (token.isEmpty() || token.startsWith("#")) {
                continue;
            }
            if (token.length() < MIN_LENGTH || token.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException(file + ": line " + (i + 1) + " is not a token (expected: at least "
                        + MIN_LENGTH + " characters, no spaces)");
            }
            digests.add(sha256(token));
        }
        if (digests.isEmpty()) {
            throw new IllegalArgumentException(file + ": no token in it (expected: one token per line)");
        }
        return List.copyOf(digests);
    }

    /** Whether {@code token} is one of the accepted ones. */
    public boolean accepts(String token) {
        byte[] presented = sha256(token);
        boolean match = false;
        for (byte[] digest : digests) {
            match |= MessageDigest.isEqual(digest, presented);
        }
        return match;
    }

    /** How many tokens are accepted now. */
    public int size() {
        return digests.size();
    }

    @Override
    public List<Path> files() {
        return List.of(file);
    }

    @Override
    public void reload() {
        digests = read(file);
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
