package dev.larder.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes the bytes of Larder requests straight into a direct buffer: fixed parts are pre-encoded once, ids are
 * written digit by digit, and values come from one pre-generated array, so a request costs no garbage beyond its
 * buffer. Shared (immutable) between threads; each thread draws ids with its own {@link SplittableRandom}.
 */
final class RequestEncoder {

    private static final byte[] HTTP11 = ascii(" HTTP/1.1\r\n");
    private static final byte[] CONTENT_LENGTH = ascii("Content-Length: ");
    private static final byte[] CRLF = ascii("\r\n");
    private static final byte[] RANGE_END = ascii("&end=k");
    private static final byte[] RANGE_END_SUFFIX = ascii("%3A");
    // Above this a PUT body is attached without copying.
    private static final int COPY_LIMIT = 64 * 1024;

    private final byte[] putPrefix;
    private final byte[] getPrefix;
    private final byte[] deletePrefix;
    private final byte[] rangePrefix;
    private final byte[] headers;       // "Host: ...\r\n" + extra headers
    private final byte[] urlRequest;    // the whole GET of the target URL
    private final byte[] value;
    private final ByteBuf sharedValue;

    RequestEncoder(URI target, List<String> extraHeaders, int maxValueSize, long seed) {
        String base = target.getRawPath() == null || target.getRawPath().equals("/") ? ""
                : stripTrailingSlash(target.getRawPath());
        putPrefix = ascii("PUT " + base + "/v0/entity?id=k");
        getPrefix = ascii("GET " + base + "/v0/entity?id=k");
        deletePrefix = ascii("DELETE " + base + "/v0/entity?id=k");
        rangePrefix = ascii("GET " + base + "/v0/entities?start=k");
        StringBuilder h = new StringBuilder("Host: ").append(hostHeader(target)).append("\r\n");
        for (String header : extraHeaders) {
            h.append(header.trim()).append("\r\n");
        }
        headers = ascii(h.toString());
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        if (target.getRawQuery() != null) {
            path += "?" + target.getRawQuery();
        }
        urlRequest = ascii("GET " + path + " HTTP/1.1\r\n" + h + "\r\n");
        value = new byte[maxValueSize];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) ('a' + random.nextInt(26));
        }
        sharedValue = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(value).asReadOnly());
    }

    private static String stripTrailingSlash(String s) {
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    static String hostHeader(URI target) {
        int port = target.getPort();
        return port < 0 ? target.getHost() : target.getHost() + ":" + port;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    ByteBuf url(ByteBufAllocator alloc) {
        ByteBuf buf = alloc.directBuffer(urlRequest.length);
        return buf.writeBytes(urlRequest);
    }

    ByteBuf put(ByteBufAllocator alloc, long id, int size) {
        ByteBuf head = alloc.directBuffer(putPrefix.length + 20 + HTTP11.length + headers.length + 40
                + (size <= COPY_LIMIT ? size : 0));
        head.writeBytes(putPrefix);
        writeDecimal(head, id);
        head.writeBytes(HTTP11).writeBytes(headers).writeBytes(CONTENT_LENGTH);
        writeDecimal(head, size);
        head.writeBytes(CRLF).writeBytes(CRLF);
        if (size <= COPY_LIMIT) {
            return head.writeBytes(value, 0, size);
        }
        return alloc.compositeDirectBuffer(2).addComponents(true, head, sharedValue.slice(0, size));
    }

    ByteBuf get(ByteBufAllocator alloc, long id) {
        return simple(alloc, getPrefix, id);
    }

    ByteBuf delete(ByteBufAllocator alloc, long id) {
        return simple(alloc, deletePrefix, id);
    }

    ByteBuf range(ByteBufAllocator alloc, long id) {
        ByteBuf buf = alloc.directBuffer(rangePrefix.length + 60 + HTTP11.length + headers.length + 2);
        buf.writeBytes(rangePrefix);
        writeDecimal(buf, id);
        buf.writeBytes(RANGE_END);
        writeDecimal(buf, id);
        buf.writeBytes(RANGE_END_SUFFIX);
        return buf.writeBytes(HTTP11).writeBytes(headers).writeBytes(CRLF);
    }

    private ByteBuf simple(ByteBufAllocator alloc, byte[] prefix, long id) {
        ByteBuf buf = alloc.directBuffer(prefix.length + 20 + HTTP11.length + headers.length + 2);
        buf.writeBytes(prefix);
        writeDecimal(buf, id);
        return buf.writeBytes(HTTP11).writeBytes(headers).writeBytes(CRLF);
    }

    static void writeDecimal(ByteBuf buf, long v) {
        if (v < 0) {
            buf.writeByte('-');
            v = -v;
        }
        if (v < 10) {
            buf.writeByte((int) ('0' + v));
            return;
        }
        long div = 1;
        while (v / div >= 10) {
            div *= 10;
        }
        while (div > 0) {
            buf.writeByte((int) ('0' + (v / div) % 10));
            div /= 10;
        }
    }

    /** The request stream of a workload for one thread. */
    RequestSource workload(Workload workload, Zipfian zipfian, AtomicLong putCursor, long seed) {
        return new WorkloadSource(this, workload, zipfian, putCursor, new SplittableRandom(seed));
    }

    /** {@code PUT k1..k<keys>} once, shared by all threads through {@code cursor}, then {@code null}. */
    RequestSource prefill(AtomicLong cursor, long keys, ValueSize size, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return alloc -> {
            long id = cursor.incrementAndGet();
            if (id > keys) {
                return null;
            }
            return put(alloc, id, size.isFixed() ? size.min() : random.nextInt(size.min(), size.max() + 1));
        };
    }

    private static final class WorkloadSource implements RequestSource {
        private final RequestEncoder encoder;
        private final Operation[] ops;
        private final int[] cumulative;
        private final int total;
        private final long keys;
        private final Zipfian zipfian;
        private final boolean readWritten;
        private final boolean randomPutIds;
        private final ValueSize size;
        private final AtomicLong putCursor;
        private final SplittableRandom random;

        WorkloadSource(RequestEncoder encoder, Workload workload, Zipfian zipfian, AtomicLong putCursor,
                       SplittableRandom random) {
            this.encoder = encoder;
            this.ops = new Operation[workload.mix().size()];
            this.cumulative = new int[ops.length];
            int sum = 0;
            for (int i = 0; i < ops.length; i++) {
                ops[i] = workload.mix().get(i).operation();
                sum += workload.mix().get(i).weight();
                cumulative[i] = sum;
            }
            this.total = sum;
            this.keys = workload.keys();
            this.zipfian = workload.distribution() == KeyDistribution.ZIPFIAN ? zipfian : null;
            this.readWritten = workload.distribution() == KeyDistribution.WRITTEN;
            this.randomPutIds = workload.randomPutIds();
            this.size = workload.valueSize();
            this.putCursor = putCursor;
            this.random = random;
        }

        @Override
        public ByteBuf next(ByteBufAllocator alloc) {
            Operation op = ops[0];
            if (ops.length > 1) {
                int r = random.nextInt(total);
                int i = 0;
                while (cumulative[i] <= r) {
                    i++;
                }
                op = ops[i];
            }
            return switch (op) {
                case PUT -> encoder.put(alloc, randomPutIds ? 1 + random.nextLong(keys) : putCursor.incrementAndGet(),
                        size.isFixed() ? size.min() : random.nextInt(size.min(), size.max() + 1));
                case GET -> encoder.get(alloc, readKey());
                case DELETE -> encoder.delete(alloc, readKey());
                case RANGE -> encoder.range(alloc, readKey());
                case URL -> encoder.url(alloc);
            };
        }

        private long readKey() {
            if (zipfian != null) {
                return zipfian.next(random);
            }
            return 1 + random.nextLong(readWritten ? Math.max(1, putCursor.get()) : keys);
        }
    }
}
