package dev.larder.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The processes on this machine that listen on a TCP port, found the way {@code ss -ltnp} finds them: the listening
 * sockets' inodes in {@code /proc/net/tcp} and {@code tcp6}, then the processes holding a descriptor of one of them.
 * For nginx that is the master and its workers (they share the listening socket); for Larder, its one JVM. Empty
 * where there is no {@code /proc}, the server is on another machine, or its descriptors may not be read (another
 * user's process without the privilege).
 */
final class ListeningProcesses {

    private static final String LISTEN = "0A";

    private ListeningProcesses() {
    }

    /** The pids listening on {@code target}'s port when its host is this machine; empty otherwise. */
    static List<Long> serving(URI target) {
        int port = target.getPort() > 0 ? target.getPort() : "https".equals(target.getScheme()) ? 443 : 80;
        return isThisMachine(target.getHost()) ? listeningOn(port, Path.of("/proc")) : List.of();
    }

    static boolean isThisMachine(String host) {
        try {
            InetAddress address = InetAddress.getByName(host);
            return address.isLoopbackAddress() || address.isAnyLocalAddress()
                    || NetworkInterface.getByInetAddress(address) != null;
        } catch (UnknownHostException | SocketException | SecurityException e) {
            return false;
        }
    }

    /** The pids under {@code proc} holding a socket that listens on {@code port} (IPv4 or IPv6). */
    static List<Long> listeningOn(int port, Path proc) {
        Set<String> sockets = new HashSet<>();
        for (String table : List.of("net/tcp", "net/tcp6")) {
            try {
                sockets.addAll(listeningInodes(Files.readString(proc.resolve(table)), port));
            } catch (IOException | RuntimeException e) {
                // No IPv6 table, or no /proc at all: whatever the other table says.
            }
        }
        if (sockets.isEmpty()) {
            return List.of();
        }
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(proc, "[0-9]*")) {
            for (Path process : processes) {
                if (holdsAny(process.resolve("fd"), sockets)) {
                    pids.add(Long.parseLong(process.getFileName().toString()));
                }
            }
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        pids.sort(null);
        return pids;
    }

    /**
     * Which CPUs the processes {@code pids} may run on together (the union of their {@code Cpus_allowed_list}:
     * {@code taskset -c 1} gives CPU 1); empty when unknown.
     */
    static BitSet allowedCpuSet(List<Long> pids) {
        return allowedCpuSet(pids, Path.of("/proc"));
    }

    static BitSet allowedCpuSet(List<Long> pids, Path proc) {
        BitSet cpus = new BitSet();
        for (long pid : pids) {
            try {
                for (String line : Files.readAllLines(proc.resolve(pid + "/status"))) {
                    if (line.startsWith("Cpus_allowed_list:")) {
                        cpus.or(cpuList(line.substring(line.indexOf(':') + 1).trim()));
                    }
                }
            } catch (IOException | RuntimeException e) {
                return new BitSet();
            }
        }
        return cpus;
    }

    /** A kernel CPU list such as {@code 0-3,8,10-11}. */
    static BitSet cpuList(String list) {
        BitSet cpus = new BitSet();
        for (String part : list.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int dash = part.indexOf('-');
            int from = Integer.parseInt(part.substring(0, dash < 0 ? part.length() : dash).trim());
            int to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1).trim());
            cpus.set(from, to + 1);
        }
        return cpus;
    }

    /** The inodes ({@code socket:[inode]}) of the sockets a {@code /proc/net/tcp} text lists as listening on port. */
    static Set<String> listeningInodes(String table, int port) {
        Set<String> out = new HashSet<>();
        for (String line : table.split("\n")) {
            String[] f = line.trim().split("\\s+");
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
            if (f.length < 10 || !f[0].endsWith(":") || !LISTEN.equals(f[3])) {
                continue;
            }
            int colon = f[1].lastIndexOf(':');
            if (colon < 0) {
                continue;
            }
            try {
                if (Integer.parseInt(f[1].substring(colon + 1), 16) == port && !f[9].equals("0")) {
                    out.add("socket:[" + f[9] + "]");
                }
            } catch (NumberFormatException e) {
                // not a socket line
            }
        }
        return out;
    }

    private static boolean holdsAny(Path fds, Set<String> sockets) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path fd : entries) {
                try {
                    if (sockets.contains(Files.readSymbolicLink(fd).toString())) {
                        return true;
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    // closed meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not ours to read
        }
        return false;
    }
}
