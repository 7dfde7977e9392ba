package dev.larder.cli;

import sun.misc.Signal;

/** SIGHUP: reload the certificate and token files now, as nginx and etcd do, instead of waiting for the poll. */
final class ReloadSignal {

    private ReloadSignal() {
    }

    static void install(Runnable reload) {
        Signal.handle(new Signal("HUP"), s -> reload.run());
    }
}
