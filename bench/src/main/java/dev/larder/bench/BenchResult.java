package dev.larder.bench;

import java.time.Instant;
import java.util.List;

/**
 * A whole {@code larder bench} invocation: options, and per target its runs (and sweep).
 *
 * @param options  what was asked
 * @param sweep    the sweep settings, or {@code null} for single runs
 * @param started  when it began
 * @param machine  a line about the machine the generator ran on
 * @param targets  results per target, in order
 */
public record BenchResult(BenchOptions options, SweepOptions sweep, Instant started, String machine,
                          List<TargetResult> targets) {

    public BenchResult {
        targets = List.copyOf(targets);
    }
}
