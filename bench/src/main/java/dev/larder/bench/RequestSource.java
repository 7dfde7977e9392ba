package dev.larder.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/** Encoded requests for one generator thread; only ever called on that thread. */
interface RequestSource {

    /** The next request, ready to write; {@code null} when a bounded source (the prefill) is exhausted. */
    ByteBuf next(ByteBufAllocator alloc);
}
