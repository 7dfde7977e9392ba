package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** The leak guard itself must fail on a leak, or every test relying on it proves nothing. */
class LeakDetectionTest {

    @Test
    void aLeakedBufferFailsTheClass() throws Exception {
        LeakDetection guard = new LeakDetection();
        guard.beforeAll(null);
        leak();
        AssertionError error = assertThrows(AssertionError.class, () -> guard.afterAll(null));
        assertTrue(error.getMessage().contains("leaked buffer"), error.getMessage());
        guard.beforeAll(null); // clear what this test leaked on purpose
    }

    private static void leak() {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        buf.writeInt(42);
        // dropped without release(): only the detector can notice
    }
}
