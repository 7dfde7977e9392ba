package dev.larder.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How fast this machine and generator answered the same reference server (nginx {@code return 200}, closed-loop GET
 * for {@code probe}) at three points of a tail run: before the capacity runs, after the measured server's phases,
 * after nginx's phases. The phases' rates are a fraction of capacities measured once; on the shared virtual
 * machines this is measured on, the speed moved by half within 40 minutes with almost nothing showing as steal
 * (docs/performance.md, session 68: PUT capacity 95.6k to 46.9k), and a round whose machine slowed by a quarter ran
 * its "75%" phases at the whole of what the machine then answered. nginx does the same work every time, so a change in
 * its closed-loop rate is the machine's, not the server's.
 *
 * @param probe          each reading's duration
 * @param beforeCapacity nginx's closed-loop rate before the capacity runs (req/s)
 * @param afterPhases    after the measured server's phases (and its compactions)
 * @param afterNginx     after the same phases against nginx
 */
public record MachineSpeed(Duration probe, double beforeCapacity, double afterPhases, double afterNginx) {

    /**
     * A change beyond this share counts: a 15% slower machine turns phases at 75% of the capacity measured into phases
     * at 88% of what it answers. On the 2-vCPU machines of session 69, eight 5 s readings in a row went from 42.3k to
     * 62.5k within a minute, so there most rounds warn (docs/performance.md, "Session 69").
     */
    static final double TOLERANCE = 0.15;

    /** The phases' machine over the capacity runs' machine: below 1, the phases ran at more than {@code --load}. */
    public double phasesRatio() {
        return afterPhases / beforeCapacity;
    }

    /** nginx's phases' machine over the measured server's phases' machine: the same-rate comparison's fairness. */
    public double nginxRatio() {
        return afterNginx / afterPhases;
    }

    /** The changes beyond {@link #TOLERANCE}, each said in terms of what it does to the run's figures. */
    public List<Warning> warnings(double load) {
        List<Warning> out = new ArrayList<>();
        if (moved(phasesRatio())) {
            out.add(new Warning(Warning.Kind.MACHINE_SPEED_CHANGED, String.format(Locale.ROOT,
                    "this machine answered nginx at %.2fx its speed before the capacity runs right after the phases "
                            + "(%.0f against %.0f req/s, closed-loop GET): the phases ran at about %.0f%% of what it "
                            + "could then answer, not %.0f%%; the round measured the host's hour as much as the "
                            + "server, run it again", phasesRatio(), afterPhases, beforeCapacity,
                    100 * load / phasesRatio(), 100 * load)));
        }
        if (moved(nginxRatio())) {
            out.add(new Warning(Warning.Kind.MACHINE_SPEED_CHANGED, String.format(Locale.ROOT,
                    "this machine answered nginx at %.2fx after nginx's phases what it did after the server's (%.0f "
                            + "against %.0f req/s): nginx's p99 beside each phase was measured on a %s machine",
                    nginxRatio(), afterNginx, afterPhases, nginxRatio() < 1 ? "slower" : "faster")));
        }
        return out;
    }

    /** One line for the text summary. */
    public String describe() {
        return String.format(Locale.ROOT, "nginx closed-loop GET for %s: %.0f req/s before the capacity runs, %.0f "
                        + "after the phases (%.2fx), %.0f after nginx's phases (%.2fx of the one before)",
                Units.shortTime(probe.toNanos() / 1000.0), beforeCapacity, afterPhases, phasesRatio(), afterNginx,
                nginxRatio());
    }

    private static boolean moved(double ratio) {
        return !(ratio >= 1 - TOLERANCE && ratio <= 1 + TOLERANCE);
    }
}
