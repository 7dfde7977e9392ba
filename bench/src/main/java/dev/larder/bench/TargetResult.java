package dev.larder.bench;

import java.net.URI;
import java.util.List;

/**
 * Everything measured on one target.
 *
 * @param label    the target's name
 * @param url      its data URL
 * @param adminUrl its admin URL (profiles, metrics)
 * @param settings what we learned of its configuration
 * @param prefill  the prefill summary, or {@code null}
 * @param runs     every run, in order
 * @param sweep    the sweep verdict, or {@code null} for a single run
 */
public record TargetResult(String label, URI url, URI adminUrl, List<String> settings, String prefill,
                           List<RunResult> runs, SweepOutcome sweep) {

    public TargetResult {
        settings = List.copyOf(settings);
        runs = List.copyOf(runs);
    }
}
