package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PortProbeTest {

    @Test
    void aTakenPortIsRefusedWithTheSystemsReason() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Optional<String> why = PortProbe.whyNotBindable("127.0.0.1", taken.getLocalPort());
            assertTrue(why.isPresent() && why.get().contains("in use"), why.toString());
        }
    }

    @Test
    void aFreePortIsLeftFreeForTheListener() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        assertEquals(Optional.empty(), PortProbe.whyNotBindable("127.0.0.1", port));
        // The probe let go of it: a listener can bind it right after.
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new java.net.InetSocketAddress("127.0.0.1", port));
        }
    }

    @Test
    void portZeroAndAnUnknownHostAreAnswered() {
        assertEquals(Optional.empty(), PortProbe.whyNotBindable("127.0.0.1", 0));
        assertTrue(PortProbe.whyNotBindable("no-such-host.invalid", 8080).isPresent());
    }
}
