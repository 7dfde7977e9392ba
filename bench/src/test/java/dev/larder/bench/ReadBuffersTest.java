package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The generator's read buffer after a phase of small answers: it must still read a GET's answer whole, or the first
 * GETs after a PUT phase take the parser's partial-line path (and the JIT's trap on it) in the middle of the switch.
 */
class ReadBuffersTest {

    /** A PUT's answer on the wire: {@code HTTP/1.1 201 Created} and a zero Content-Length, about 40 bytes. */
    private static final int PUT_ANSWER_BYTES = 40;
    /** A GET's answer with the benchmarks' 64-byte value and Larder's headers, rounded up. */
    private static final int GET_ANSWER_BYTES = 160;

    @Test
    void aPhaseOfSmallAnswersLeavesTheGeneratorsReadBufferRoomForAGetAnswer() {
        // The allocator of the bootstrap every generator connection is made from, not a copy of its settings.
        Bootstrap connections = LoadGenerator.connections(new DefaultEventLoop(), NioSocketChannel.class,
                new InetSocketAddress("127.0.0.1", 1), Duration.ofSeconds(1));
        RecvByteBufAllocator allocator = (RecvByteBufAllocator) connections.config().options()
                .get(ChannelOption.RCVBUF_ALLOCATOR);
        assertNotNull(allocator, "the generator's connections use Netty's default read buffers");
        int guess = guessAfterSmallReads(allocator.newHandle());
        assertTrue(guess >= 2048, "read buffer after a PUT phase: " + guess + " bytes");
    }

    /** Why the floor is there: Netty's default allocator, given the same reads, shrinks below a GET's answer. */
    @Test
    void nettysDefaultShrinksBelowAGetAnswerOnTheSameReads() {
        int guess = guessAfterSmallReads(new AdaptiveRecvByteBufAllocator().newHandle());
        assertTrue(guess < GET_ANSWER_BYTES, "Netty's default kept " + guess + " bytes: the premise changed");
    }

    // 10 000 read events of one PUT answer each, as a connection sees them in a phase of PUTs.
    private static int guessAfterSmallReads(RecvByteBufAllocator.Handle handle) {
        ChannelConfig config = new EmbeddedChannel().config();
        for (int i = 0; i < 10_000; i++) {
            handle.reset(config);
            handle.lastBytesRead(PUT_ANSWER_BYTES);
            handle.incMessagesRead(1);
            handle.readComplete();
        }
        return handle.guess();
    }
}
