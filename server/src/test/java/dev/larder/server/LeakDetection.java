package dev.larder.server;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty's leak detector (paranoid in the build) reports any leaked buffer. Netty only logs
 * leaks; this factory records them, and after the class a few GC rounds plus fresh allocations make the detector
 * drain its reference queue and report.
 */
public final class LeakDetection implements BeforeAllCallback, AfterAllCallback {

    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static volatile boolean installed;

    @Override
    public void beforeAll(ExtensionContext context) {
        install();
        LEAKS.clear();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (int round = 0; round < 5; round++) {
            System.gc();
            Thread.sleep(50);
            for (int i = 0; i < 100; i++) {
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                probe.release();
            }
        }
        if (!LEAKS.isEmpty()) {
            fail("Netty reported " + LEAKS.size() + " leaked buffer(s):\n" + String.join("\n\n", LEAKS));
        }
    }

    private static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                        long maxActive) {
                return new ResourceLeakDetector<>(resource, samplingInterval) {
                    @Override
                    protected void reportTracedLeak(String resourceType, String records) {
                        LEAKS.add(resourceType + records);
                        super.reportTracedLeak(resourceType, records);
                    }

                    @Override
                    protected void reportUntracedLeak(String resourceType) {
                        LEAKS.add(resourceType + " (untraced)");
                        super.reportUntracedLeak(resourceType);
                    }
                };
            }
        });
    }
}
