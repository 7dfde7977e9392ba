package dev.larder.server.security;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import java.util.Set;

/**
 * Lets a request through only with {@code Authorization: Bearer <token>} naming an accepted token, or to one of the
 * open paths (health checks). Anything else is answered 401 with {@code WWW-Authenticate} (RFC 6750) and the
 * connection is closed: the body of a refused upload is never read into memory, and a client guessing tokens pays a
 * new connection (and, over TLS, a handshake) per guess.
 *
 * <p>Sits after the HTTP decoder and before anything that buffers a body. Requests the decoder could not parse pass
 * through to the handler that answers them 400/414/431, which reveals nothing. One instance per connection.
 */
public final class TokenCheck extends ChannelInboundHandlerAdapter {

    private static final String BEARER = "Bearer ";

    private final TokenFile tokens;
    private final Set<String> openPaths;
    private final RefusalLog log;
    private final String realm;
    private boolean refusing;

    TokenCheck(TokenFile tokens, Set<String> openPaths, RefusalLog log, String realm) {
        this.tokens = tokens;
        this.openPaths = openPaths;
        this.log = log;
        this.realm = realm;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refusing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request && !request.decoderResult().isFailure()) {
            String refusal = refusal(request);
            if (refusal != null) {
                refusing = true;
                ReferenceCountUtil.release(msg);
                ctx.channel().config().setAutoRead(false);
                // The request line without its query string: ids may be confidential too. The token never appears.
                log.refused("401 " + refusal + ": " + request.method() + " "
                        + new QueryStringDecoder(request.uri()).rawPath() + " from " + ctx.channel().remoteAddress());
                ctx.writeAndFlush(unauthorized(refusal)).addListener(ChannelFutureListener.CLOSE);
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** Why {@code request} may not pass, or null when it may. */
    private String refusal(HttpRequest request) {
        String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
                && tokens.accepts(authorization.substring(BEARER.length()).strip())) {
            return null;
        }
        if (!openPaths.isEmpty() && openPaths.contains(new QueryStringDecoder(request.uri()).path())) {
            return null;
        }
        if (authorization == null) {
            return "no bearer token";
        }
        return authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
                ? "wrong bearer token" : "not a bearer token";
    }

    private FullHttpResponse unauthorized(String refusal) {
        byte[] body = ("unauthorized: " + refusal + "\n").getBytes(UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.UNAUTHORIZED,
                Unpooled.wrappedBuffer(body));
        // RFC 6750 section 3: no error code when no credentials were sent, invalid_token when they were wrong.
        String challenge = "Bearer realm=\"" + realm + "\""
                + (refusal.equals("no bearer token") ? "" : ", error=\"invalid_token\"");
        response.headers()
                .set(HttpHeaderNames.WWW_AUTHENTICATE, challenge)
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }
}
