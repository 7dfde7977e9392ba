package dev.larder.server.answer;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.server.LeakDetection;
import dev.larder.server.config.RejectReason;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The exact bytes an {@link Answer} puts on the wire. */
@ExtendWith(LeakDetection.class)
class AnswerTest {

    private static String wire(Answer answer, boolean close) {
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        answer.writeAndFlush(channel.pipeline().firstContext(), close);
        StringBuilder out = new StringBuilder();
        for (ByteBuf buf = channel.readOutbound(); buf != null; buf = channel.readOutbound()) {
            out.append(buf.toString(ISO_8859_1));
            buf.release();
        }
        assertFalse(channel.finishAndReleaseAll());
        return out.toString();
    }

    @Test
    void theConnectionIsClosedAfterTheAnswerOnlyWhenAsked() {
        for (boolean close : new boolean[] {false, true}) {
            EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
            HttpResponses.value(new byte[2000]).writeAndFlush(channel.pipeline().firstContext(), close);
            assertEquals(!close, channel.isOpen(), "close " + close);
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void bodyLessAnswersCarryAZeroLengthAndCloseOnlyWhenAsked() {
        assertEquals("HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n", wire(HttpResponses.CREATED, false));
        assertEquals("HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                wire(HttpResponses.ACCEPTED, true));
    }

    @Test
    void contentLengthMatchesTheBodyAcrossDigitCountsAndTheCopyThreshold() {
        for (int size : new int[] {1, 9, 10, 99, 100, 1023, 1024, 1025, 65_536, 1_234_567}) {
            byte[] value = new byte[size];
            Arrays.fill(value, (byte) 'x');
            String expected = "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: " + size
                    + "\r\n\r\n" + new String(value, ISO_8859_1);
            assertEquals(expected, wire(HttpResponses.value(value), false), "size " + size);
        }
    }

    @Test
    void textAnswersAreOneLineAndRefusalsSayWhenToRetry() {
        // CR and LF in a reason become spaces: one line, and no way to smuggle a header in.
        assertEquals("HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 10\r\n"
                + "\r\nbad  id x\n", wire(HttpResponses.text(HttpResponseStatus.BAD_REQUEST, "bad\r\nid x"), false));
        String refusal = wire(HttpResponses.unavailable(RejectReason.QUEUE_FULL), false);
        assertEquals(0, refusal.indexOf("HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
                + "retry-after: 1\r\ncontent-length: "), refusal);
        assertThrows(IllegalArgumentException.class,
                () -> Answer.of(HttpResponseStatus.OK, null).header("allow", "GET\r\nX-Injected: 1"));
    }
}
