package dev.larder.bench;

import org.HdrHistogram.Histogram;

/**
 * What one generator thread measured; merged into a {@link RunResult}.
 *
 * @param corrected   latency from the due time, µs
 * @param uncorrected latency from the actual send, µs
 * @param lag         how late the generator sent requests it could have sent, µs
 * @param completed   responses received inside the measured window
 * @param completedTotal responses received at any time (warm-up included)
 * @param bytes       bytes read inside the window
 * @param errors      socket errors
 * @param statusCounts responses per status code (index = code) inside the window
 * @param rateSamples requests/s of this thread, one per 100 ms of the window
 * @param inFlight    requests still unanswered when the window closed
 * @param behind      requests due before the window closed that never went out
 * @param behindAtStart requests due before the window opened that had not gone out yet (warm-up backlog)
 * @param timeline    the window second by second
 */
record ThreadStats(Histogram corrected, Histogram uncorrected, Histogram lag, long completed, long completedTotal,
                   long bytes, SocketErrors errors, long[] statusCounts, double[] rateSamples, long inFlight, long behind,
                   long behindAtStart, TimelineRecorder timeline) {
}
