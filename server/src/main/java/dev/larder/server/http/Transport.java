package dev.larder.server.http;

import dev.larder.server.config.TransportKind;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.netty.channel.uring.IoUringServerSocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The transport chosen for the event loops, with why the better ones were not.
 *
 * @param kind         the transport in use (never {@link TransportKind#AUTO})
 * @param ioHandlers   factory for the event loops' I/O handlers
 * @param serverChannel server socket channel class matching the handlers
 * @param skipped      one line per better transport that was not used, with the reason
 */
public record Transport(TransportKind kind, IoHandlerFactory ioHandlers,
                        Class<? extends ServerChannel> serverChannel, List<String> skipped) {

    /**
     * Resolves {@code requested}: {@code AUTO} takes the first available of io_uring, epoll, nio; an explicit native
     * transport that is unavailable is an error naming the cause.
     */
    public static Transport select(TransportKind requested) {
        List<String> skipped = new ArrayList<>();
        if (requested == TransportKind.AUTO || requested == TransportKind.IO_URING) {
            if (IoUring.isAvailable()) {
                return new Transport(TransportKind.IO_URING,
                        WakeupTimerIoHandler.factory(IoUringIoHandler.newFactory(ioUringConfig())),
                        IoUringServerSocketChannel.class, skipped);
            }
            String why = "io_uring unavailable: " + reason(IoUring.unavailabilityCause());
            if (requested == TransportKind.IO_URING) {
                throw new IllegalStateException(why);
            }
            skipped.add(why);
        }
        if (requested == TransportKind.AUTO || requested == TransportKind.EPOLL) {
            if (Epoll.isAvailable()) {
                return new Transport(TransportKind.EPOLL, EpollIoHandler.newFactory(),
                        EpollServerSocketChannel.class, skipped);
            }
            String why = "epoll unavailable: " + reason(Epoll.unavailabilityCause());
            if (requested == TransportKind.EPOLL) {
                throw new IllegalStateException(why);
            }
            skipped.add(why);
        }
        return new Transport(TransportKind.NIO, NioIoHandler.newFactory(), NioServerSocketChannel.class, skipped);
    }

    /**
     * Each event loop's ring is set up for a single issuer, which on kernels that have them (6.1 on) also defers the
     * kernel's completion work to the loop's next wait ({@code IORING_SETUP_SINGLE_ISSUER}, {@code DEFER_TASKRUN}):
     * a loop owns its ring and never changes thread. Netty's default set-up asks for neither. Same CPU per request,
     * and at fixed rates near a full core a lower p99 in 9 of 13 alternating pairs on one core: medians 5.5 against
     * 10.7 ms (GET 40-45k/s), 11.8 against 81.5 ms (PUT 60k/s). Why is not established: the server core's interrupts
     * were about as many either way (docs/performance.md, "Session 82"). Older kernels get Netty's default set-up.
     */
    private static IoUringIoHandlerConfig ioUringConfig() {
        return new IoUringIoHandlerConfig().setSingleIssuer(true);
    }

    private static String reason(Throwable cause) {
        if (cause == null) {
            return "unknown";
        }
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        return message.replace('\n', ' ');
    }

    /**
     * For the startup line: "io_uring (best available)", "epoll (io_uring unavailable: ...)", or the explicit choice.
     */
    public String describe() {
        if (!skipped.isEmpty()) {
            return kind.flag() + " (" + String.join("; ", skipped) + ")";
        }
        return kind == TransportKind.IO_URING ? kind.flag() + " (best available)" : kind.flag();
    }
}
