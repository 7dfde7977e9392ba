package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reading HotSpot's {@code Compiler.codelist} and {@code Compiler.queue}, as this JDK prints them. */
class CompiledCodeTest {

    private static final String CODELIST = """
            3048 3 0 dev.larder.server.offload.Worker.runOnce(Ljava/util/List;Ljava/util/List;)Z [0x00007fbaad8dfb10, \
            0x00007fbaad8dfde0 - 0x00007fbaad8e0e80]
            4596 4 0 dev.larder.server.offload.CompletionBatch.flush()V [0x00007f0905072510, 0x00007f0905072820 - \
            0x00007f0905073c38]
            5975 4 2 dev.larder.server.entity.EntityCall.readAll(Ljava/util/List;J)V [0x00007f0905072510, \
            0x00007f0905072820 - 0x00007f0905073c38]
            21 0 0 java.lang.System.arraycopy(Ljava/lang/Object;ILjava/lang/Object;II)V [0x00007f0904ec7010, \
            0x00007f0904ec71a0 - 0x00007f0904ec73a0]
            """;

    private static final String BUSY = """
            16105:
            Current compiles:\s
            C2 CompilerThread0  4278       4       io.prometheus.metrics.model.snapshots.Foo::introSort (192 bytes)

            C1 compile queue:
            Empty

            C2 compile queue:
            Empty
            """;

    private static final String QUEUED = """
            Current compiles:\s

            C1 compile queue:
            Empty

            C2 compile queue:
            4186       4       io.netty.buffer.ReadOnlyByteBuf::nioBufferCount (8 bytes)
            """;

    private static final String IDLE_BUT_C1 = """
            Current compiles:\s
            C1 CompilerThread0  4301       3       io.netty.buffer.AbstractByteBuf::isReadable (17 bytes)

            C1 compile queue:
            4302       3       io.netty.buffer.AbstractByteBuf::writerIndex (5 bytes)

            C2 compile queue:
            Empty
            """;

    @Test
    void onlyTopTierCodeInUseCounts() {
        CompiledCode code = CompiledCode.of(() -> CODELIST, () -> "");
        Set<String> missing = code.notAtTopTier(List.of(
                "dev.larder.server.offload.Worker.runOnce",
                "dev.larder.server.offload.CompletionBatch.flush",
                "dev.larder.server.entity.EntityCall.readAll",
                "dev.larder.server.Nowhere.nothing"));
        assertEquals(Set.of(
                "dev.larder.server.offload.Worker.runOnce",
                "dev.larder.server.entity.EntityCall.readAll",
                "dev.larder.server.Nowhere.nothing"), missing,
                "tier 3 is C1's, and state 2 is code thrown away (not entrant)");
    }

    @Test
    void withoutACodeListNothingIsWaitedFor() {
        CompiledCode code = CompiledCode.of(() -> "", () -> "");
        assertEquals(Set.of(), code.notAtTopTier(List.of("dev.larder.server.offload.Worker.runOnce")));
        assertTrue(code.topTierIdle());
    }

    @Test
    void c2IsIdleOnlyWithNothingRunningAndNothingQueued() {
        assertFalse(CompiledCode.of(() -> "", () -> BUSY).topTierIdle(), "a compilation running");
        assertFalse(CompiledCode.of(() -> "", () -> QUEUED).topTierIdle(), "a compilation queued");
        assertTrue(CompiledCode.of(() -> "", () -> IDLE_BUT_C1).topTierIdle(), "C1's work is not C2's");
    }

    @Test
    void thisJvmListsItsCode() {
        // Compiled by now in any JVM that has run a test: the class loading and string code of start-up.
        CompiledCode code = CompiledCode.ofThisJvm();
        Set<String> missing = code.notAtTopTier(List.of("dev.larder.cli.Nowhere.nothing"));
        assertEquals(Set.of("dev.larder.cli.Nowhere.nothing"), missing,
                "HotSpot answers Compiler.codelist through its MBean, so an unknown method is listed as missing");
    }
}
