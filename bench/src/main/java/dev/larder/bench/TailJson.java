package dev.larder.bench;

import java.util.List;

/** The {@code --json} summary of a tail run; each run in {@link JsonSummary}'s layout (latencies in ms). */
final class TailJson {

    private TailJson() {
    }

    static String of(TailResult r) {
        TailOptions tail = r.tail();
        long bound = tail.slo().thresholdMicros();
        Json j = new Json().beginObject();
        j.field("tool", "larder bench tail");
        j.field("started", r.started().toString());
        // Phases' start_seconds count from here, not from "started" (the warm-up and capacity runs come between).
        j.field("phases_started", r.phasesStarted().toString());
        j.field("command", r.options().commandLine());
        j.field("machine", r.machine());
        j.field("generator", r.options().describeConnections());
        j.field("tail", tail.describe());
        j.field("slo", tail.slo().describe());
        j.field("slo_bound_ms", bound / 1000.0);
        j.key("server").beginObject().field("label", r.label()).field("url", r.url().toString());
        j.key("settings").beginArray();
        for (String s : r.settings()) {
            j.value(s);
        }
        j.endArray().field("prefill", r.prefill()).endObject();
        optionalRun(j, "warmup", r.warmup());
        j.key("capacity").beginObject().field("put_rate", r.putCapacity().achievedRate())
                .field("get_rate", r.getCapacity().achievedRate());
        optionalRun(j, "put", r.putCapacity());
        optionalRun(j, "get", r.getCapacity());
        j.endObject();
        j.key("phases").beginArray();
        for (TailResult.PhaseResult p : r.phases()) {
            j.beginObject();
            j.field("kind", p.kind().name());
            j.field("rate", p.rate());
            j.field("start_seconds", p.startSeconds());
            j.field("started", r.phasesStarted().plusNanos(Math.round(p.startSeconds() * 1e9)).toString());
            j.field("seconds_above_slo", p.secondsAbove(bound));
            countOrNull(j, "seconds_above_slo_stolen", p.secondsAboveStolen(bound));
            countOrNull(j, "recovery_seconds", p.recoverySeconds(bound));
            j.field("switch_cost_seconds", p.switchCostSeconds(tail.switchWindow()));
            j.field("p99_ratio_to_nginx", p.p99Ratio());
            j.field("cpu_over_saturated", r.costOverSaturated(p));
            j.field("write_stall_seconds", p.writeStallSeconds());
            j.field("coalesce_spin_seconds", p.spinSeconds());
            optionalRun(j, "larder", p.larder());
            optionalRun(j, "nginx", p.nginx());
            j.endObject();
        }
        j.endArray();
        j.key("sustainable");
        sustainable(j, r.sustainable(), bound);
        optionalRun(j, "nginx_capacity", r.nginxCapacity());
        j.key("nginx_sustainable");
        sustainable(j, r.nginxSustainable(), bound);
        j.key("machine_speed");
        if (r.machineSpeed() == null) {
            j.nullValue();
        } else {
            MachineSpeed m = r.machineSpeed();
            j.beginObject().field("probe_seconds", m.probe().toNanos() / 1e9)
                    .field("before_capacity", m.beforeCapacity()).field("after_phases", m.afterPhases())
                    .field("after_nginx", m.afterNginx()).field("phases_ratio", m.phasesRatio())
                    .field("nginx_ratio", m.nginxRatio());
            j.key("warnings").beginArray();
            for (Warning w : r.machineSpeedWarnings()) {
                j.value(w.message());
            }
            j.endArray().endObject();
        }
        j.key("nginx_own_load");
        if (r.nginxOwnLoad() == null) {
            j.nullValue();
        } else {
            TailResult.OwnLoad own = r.nginxOwnLoad();
            j.beginObject().field("load", tail.load()).field("put_capacity", own.putCapacity().achievedRate())
                    .field("get_capacity", own.getCapacity().achievedRate())
                    .field("phases_within_slo", own.phasesWithin(bound))
                    .field("server_phases_within_slo", r.phasesWithin(bound));
            optionalRun(j, "put", own.putCapacity());
            optionalRun(j, "get", own.getCapacity());
            j.key("phases").beginArray();
            for (TailResult.OwnLoadPhase p : own.phases()) {
                j.beginObject().field("kind", p.kind().name()).field("rate", p.rate())
                        .field("seconds_above_slo", p.secondsAbove(bound));
                optionalRun(j, "nginx", p.result());
                j.endObject();
            }
            j.endArray().endObject();
        }
        return j.endObject().toString();
    }

    /** Sustainable rates (the server's or nginx's): each op's rate, resolution and bisection trials. */
    private static void sustainable(Json j, List<TailResult.SustainableResult> found, long bound) {
        j.beginArray();
        for (TailResult.SustainableResult s : found) {
            j.beginObject().field("op", s.op().name()).field("capacity", s.capacity()).field("rate", s.rate())
                    .field("resolution", s.resolution());
            j.key("trials");
            trials(j, s.trials(), bound);
            j.key("measured_again");
            trials(j, s.measuredAgain(), bound);
            j.endObject();
        }
        j.endArray();
    }

    /** Sustainable-search holds: the verdict, the seconds above the SLO, and the whole run (its timeline too). */
    private static void trials(Json j, List<SweepOutcome.Point> trials, long bound) {
        j.beginArray();
        for (SweepOutcome.Point p : trials) {
            j.beginObject().field("rate", p.result().targetRate()).field("held", p.held())
                    .field("p99_ms", p.result().percentile(99) / 1000.0)
                    .field("seconds_above_slo", p.result().timeline().secondsAbove(bound));
            j.key("violations").beginArray();
            for (String v : p.violations()) {
                j.value(v);
            }
            j.endArray();
            optionalRun(j, "run", p.result());
            j.endObject();
        }
        j.endArray();
    }

    /** A count, or null where it is -1 (unknown, or never). */
    private static void countOrNull(Json j, String key, int count) {
        j.key(key);
        if (count < 0) {
            j.nullValue();
        } else {
            j.value(count);
        }
    }

    private static void optionalRun(Json j, String key, RunResult r) {
        j.key(key);
        if (r == null) {
            j.nullValue();
        } else {
            JsonSummary.run(j, r, null);
        }
    }
}
