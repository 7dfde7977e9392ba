package dev.larder.server.admin;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code GET /health/ready}: 200 when every check holds, else 503 listing what does not. {@link #beginShutdown()}
 * turns it 503 for good: shutdown calls it first, so load balancers stop sending traffic before the data port drains.
 */
public final class ReadyEndpoint implements AdminEndpoint {

    private final List<HealthCheck> checks;
    private final List<String> warnings;
    private volatile boolean shuttingDown;

    public ReadyEndpoint(List<HealthCheck> checks) {
        this(checks, List.of());
    }

    /** {@code warnings} do not make it unready, but each is a line of the body: someone reading it should know. */
    public ReadyEndpoint(List<HealthCheck> checks, List<String> warnings) {
        this.checks = List.copyOf(checks);
        this.warnings = List.copyOf(warnings);
    }

    /** From now on: not ready. */
    public void beginShutdown() {
        shuttingDown = true;
    }

    /** What is wrong now; empty when ready. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (shuttingDown) {
            problems.add("shutting down");
        }
        for (HealthCheck check : checks) {
            Optional<String> problem = check.problem();
            problem.ifPresent(problems::add);
        }
        return problems;
    }

    @Override
    public void serve(ChannelHandlerContext ctx, FullHttpRequest request) {
        List<String> problems = problems();
        StringBuilder ready = new StringBuilder("ready");
        warnings.forEach(warning -> ready.append("\nwarning: ").append(warning));
        ctx.writeAndFlush(problems.isEmpty()
                ? AdminResponses.text(HttpResponseStatus.OK, ready.toString())
                : AdminResponses.text(HttpResponseStatus.SERVICE_UNAVAILABLE,
                        "not ready: " + String.join("; ", problems)));
    }
}
