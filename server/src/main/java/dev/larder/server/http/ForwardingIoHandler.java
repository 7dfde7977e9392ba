package dev.larder.server.http;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.util.function.UnaryOperator;

/** An {@link IoHandler} that hands every call to another; a subclass overrides what it changes. */
abstract class ForwardingIoHandler implements IoHandler {
    protected final IoHandler delegate;

    protected ForwardingIoHandler(IoHandler delegate) {
        this.delegate = delegate;
    }

    /** A factory whose every handler is {@code wrap} applied to one of {@code handlers}'. */
    static IoHandlerFactory wrapping(IoHandlerFactory handlers, UnaryOperator<IoHandler> wrap) {
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(ThreadAwareExecutor executor) {
                return wrap.apply(handlers.newHandler(executor));
            }

            @Override
            public boolean isChangingThreadSupported() {
                return handlers.isChangingThreadSupported();
            }
        };
    }

    @Override
    public int run(IoHandlerContext context) {
        return delegate.run(context);
    }

    @Override
    public void initialize() {
        delegate.initialize();
    }

    @Override
    public void prepareToDestroy() {
        delegate.prepareToDestroy();
    }

    @Override
    public void destroy() {
        delegate.destroy();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        return delegate.register(handle);
    }

    @Override
    public void wakeup() {
        delegate.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return delegate.isCompatible(handleType);
    }
}
