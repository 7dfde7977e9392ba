package dev.larder.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;

/**
 * Netty's request decoder, with a target in absolute form turned into its {@link OriginForm} as the request line is
 * decoded (before, such a request was 400 "unknown path"). Doing it here, not in a handler of its own, costs the data
 * port's pipeline no extra step per request.
 *
 * <p>It also tells the {@link QuickRequestDecoder} in front of it when it may have the bytes back: when the last
 * thing it decoded ended a request that decoded well, and it holds nothing of the next.
 */
final class OriginFormRequestDecoder extends HttpRequestDecoder {

    private boolean betweenRequests = true;

    OriginFormRequestDecoder(HttpDecoderConfig config) {
        super(config);
    }

    @Override
    protected HttpMessage createMessage(String[] initialLine) throws Exception {
        initialLine[1] = OriginForm.of(initialLine[1]);
        return super.createMessage(initialLine);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
        int outBefore = out.size();
        int readableBefore = buffer.readableBytes();
        super.decode(ctx, buffer, out);
        if (out.size() > outBefore) {
            betweenRequests = out.get(out.size() - 1) instanceof LastHttpContent last
                    && last.decoderResult().isSuccess();
        } else if (buffer.readableBytes() != readableBefore) {
            betweenRequests = false;
        }
    }

    /** Whether no request is in progress here: nothing held, and the last one ended and decoded well. */
    boolean idle() {
        return betweenRequests && actualReadableBytes() == 0;
    }
}
