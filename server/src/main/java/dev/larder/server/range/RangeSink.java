package dev.larder.server.range;

import dev.larder.server.answer.Responder;
import io.netty.buffer.ByteBuf;

/**
 * The connection a {@link RangeStream} streams to: it writes each batch as a chunk and asks for the next one only
 * while the client keeps reading. All calls may come from any thread.
 */
public interface RangeSink extends Responder {

    /** A batch is ready; {@code last} when the range is complete. The sink owns {@code batch} from here on. */
    void streamBatch(RangeStream range, ByteBuf batch, boolean last);

    /** The range failed: before the first batch it is a 500, after it the stream is cut. */
    void streamFailed(RangeStream range, RuntimeException failure);
}
