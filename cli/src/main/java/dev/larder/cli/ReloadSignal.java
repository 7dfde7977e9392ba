package dev.larder.cli;

import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/** SIGHUP: reload the certificate and token files now, as nginx and etcd do, instead of waiting for the poll. */
final class ReloadSignal {

    private ReloadSignal() {
    }

    static void install(Runnable reload) {
        SignalHandler before = Signal.handle(new Signal("HUP"), s -> reload.run());
        if (before == SignalHandler.SIG_IGN) {
            // A process started with SIGHUP ignored (nohup, some supervisors) keeps it ignored: the JVM will not
            // take it over, so the signal never arrives. Say so rather than let a rotation wait silently.
            LoggerFactory.getLogger("larder").warn("SIGHUP is ignored by this process (started under nohup?): "
                    + "it will not reload the certificate and token files; changes are still picked up every "
                    + "--reload-interval");
        }
    }
}
