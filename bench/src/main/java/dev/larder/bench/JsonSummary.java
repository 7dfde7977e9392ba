package dev.larder.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** The {@code --json} summary: options, and per target its settings, runs and sweep verdict. Latencies in ms. */
final class JsonSummary {

    private static final double[] PERCENTILES = {50, 75, 90, 99, 99.9, 99.99, 99.999};

    private JsonSummary() {
    }

    /**
     * Writes {@code json} where {@code options} ask: to {@code stdout} for {@code --json -}, else to the file (its
     * directory created), saying so on {@code text}.
     */
    static void write(BenchOptions options, String json, PrintStream text, PrintStream stdout) throws IOException {
        if (options.jsonToStdout()) {
            stdout.println(json);
            return;
        }
        Path parent = options.json().toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(options.json(), json + "\n");
        text.println("  json: " + options.json());
    }

    static String of(BenchResult result) {
        Json j = new Json().beginObject();
        j.field("tool", "larder bench");
        j.field("started", result.started().toString());
        j.field("command", result.options().commandLine());
        j.field("machine", result.machine());
        j.field("generator", result.options().describe());
        if (result.sweep() != null) {
            SweepOptions s = result.sweep();
            j.key("sweep").beginObject().field("from", s.from()).field("to", s.to()).field("step", s.step())
                    .field("refine", s.refine()).field("slo", s.slo().describe())
                    .field("initial_warmup_seconds", s.initialWarmup().toMillis() / 1000.0).endObject();
        }
        j.key("targets").beginArray();
        for (TargetResult t : result.targets()) {
            j.beginObject();
            j.field("label", t.label());
            j.field("url", t.url().toString());
            j.field("admin_url", t.adminUrl().toString());
            j.key("settings").beginArray();
            for (String s : t.settings()) {
                j.value(s);
            }
            j.endArray();
            j.field("prefill", t.prefill());
            if (t.sweep() != null) {
                SweepOutcome o = t.sweep();
                j.key("breakdown_rate");
                if (o.breakdown() == null) {
                    j.nullValue();
                } else {
                    j.value(o.breakdown());
                }
                j.field("breakdown_above_range", o.reachedTop());
                j.field("verdict", o.verdict());
            }
            j.key("runs").beginArray();
            for (RunResult r : t.runs()) {
                run(j, r, t.sweep());
            }
            j.endArray();
            j.endObject();
        }
        j.endArray();
        return j.endObject().toString();
    }

    static void run(Json j, RunResult r, SweepOutcome sweep) {
        j.beginObject();
        j.field("target_rate", r.targetRate());
        j.field("closed_loop", r.closedLoop());
        j.field("achieved_rate", r.achievedRate());
        j.field("achieved_ratio", r.achievedRatio());
        j.field("connections", r.connections());
        j.field("threads", r.threads());
        j.field("seconds", r.seconds());
        j.field("requests", r.completed());
        j.field("bytes", r.bytes());
        j.key("latency_ms");
        histogram(j, r.corrected());
        j.key("uncorrected_latency_ms");
        histogram(j, r.uncorrected());
        j.key("generator_lag_ms");
        histogram(j, r.lag());
        j.key("socket_errors").beginObject().field("connect", r.errors().connect()).field("read", r.errors().read())
                .field("write", r.errors().write()).field("timeout", r.errors().timeout()).endObject();
        j.key("status").beginObject();
        for (Map.Entry<Integer, Long> e : r.statusCounts().entrySet()) {
            j.field(Integer.toString(e.getKey()), e.getValue());
        }
        j.endObject();
        j.field("non_2xx_3xx", r.non2xx3xx());
        j.field("error_ratio", r.errorRatio());
        j.field("in_flight_at_end", r.inFlightAtEnd());
        j.field("behind_schedule_at_end", r.behindAtEnd());
        j.field("behind_schedule_at_start", r.behindAtStart());
        // Unknown is null, like the other figures a run may lack.
        j.field("host_steal_share", r.hostSteal());
        j.key("server_cpu").beginObject().field("cores", r.serverCores())
                .field("us_per_request", r.serverMicrosPerRequest())
                .field("background_cores", r.serverBackgroundCores()).endObject();
        j.key("generator_cpu").beginObject().field("cores", r.generatorCores()).field("cpus", r.generatorCpus())
                .endObject();
        j.key("warnings").beginArray();
        for (Warning w : r.warnings()) {
            j.beginObject().field("kind", w.kind().name()).field("message", w.message()).endObject();
        }
        j.endArray();
        timeline(j, r.timeline());
        j.key("profiles").beginArray();
        for (ProfileResult p : r.profiles()) {
            j.beginObject().field("event", p.event()).field("seconds", p.seconds())
                    .field("file", p.file() == null ? null : p.file().toString()).field("error", p.error())
                    .endObject();
        }
        j.endArray();
        if (sweep != null) {
            for (SweepOutcome.Point p : sweep.points()) {
                if (p.result() == r) {
                    j.field("slo_held", p.held());
                    j.key("slo_violations").beginArray();
                    for (String v : p.violations()) {
                        j.value(v);
                    }
                    j.endArray();
                }
            }
        }
        j.endObject();
    }

    // Columns rather than one object per second: a plotting script reads each series as one array.
    private static void timeline(Json j, Timeline t) {
        j.key("timeline").beginObject();
        j.field("threshold_ms", t.thresholdMicros() / 1000.0);
        column(j, "requests", t, s -> s.completed());
        column(j, "over_threshold", t, s -> s.overThreshold());
        column(j, "p50_ms", t, s -> s.p50() / 1000.0);
        column(j, "p99_ms", t, s -> s.p99() / 1000.0);
        column(j, "max_ms", t, s -> s.max() / 1000.0);
        column(j, "server_cores", t, s -> s.machine().serverCores());
        column(j, "server_background_cores", t, s -> s.machine().serverBackgroundCores());
        j.key("server_background_threads").beginArray();
        for (Timeline.Second s : t.seconds()) {
            j.beginObject();
            s.machine().backgroundThreads().forEach((name, cores) -> j.field(name, cores.doubleValue()));
            j.endObject();
        }
        j.endArray();
        column(j, "host_steal_share", t, s -> s.machine().hostSteal());
        column(j, "server_cpus_steal_share", t, s -> s.machine().serverCpusSteal());
        j.endObject();
    }

    private static void column(Json j, String name, Timeline t, java.util.function.ToDoubleFunction<Timeline.Second> f) {
        j.key(name).beginArray();
        for (Timeline.Second s : t.seconds()) {
            j.value(f.applyAsDouble(s));
        }
        j.endArray();
    }

    static void histogram(Json j, Histogram h) {
        j.beginObject();
        j.field("count", h.getTotalCount());
        if (h.getTotalCount() > 0) {
            j.field("mean", h.getMean() / 1000.0);
            j.field("stdev", h.getStdDeviation() / 1000.0);
            for (double p : PERCENTILES) {
                j.field("p" + Slo.fmt(p), h.getValueAtPercentile(p) / 1000.0);
            }
            j.field("max", h.getMaxValue() / 1000.0);
        }
        j.endObject();
    }
}
