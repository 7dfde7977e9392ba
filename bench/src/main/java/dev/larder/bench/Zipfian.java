package dev.larder.bench;

import java.util.SplittableRandom;

/**
 * Zipfian ranks in {@code [1, n]} by the rejection-free method of Gray et al. ("Quickly generating billion-record
 * synthetic databases", SIGMOD 1994), as YCSB's {@code ZipfianGenerator} does: rank 1 is the most popular. The
 * O(n) zeta sum is computed once, in the constructor; {@link #next} is O(1) and allocation-free.
 */
final class Zipfian {

    /** YCSB's default skew. */
    static final double THETA = 0.99;

    private final long n;
    private final double theta;
    private final double alpha;
    private final double zetan;
    private final double eta;

    Zipfian(long n, double theta) {
        if (n < 1) {
            throw new IllegalArgumentException("keys: " + n + " (expected: >= 1)");
        }
        this.n = n;
        this.theta = theta;
        this.alpha = 1.0 / (1.0 - theta);
        this.zetan = zeta(n, theta);
        double zeta2 = zeta(2, theta);
        this.eta = (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetan);
    }

    private static double zeta(long n, double theta) {
        double sum = 0;
        for (long i = 1; i <= n; i++) {
            sum += 1 / Math.pow(i, theta);
        }
        return sum;
    }

    /** A rank in {@code [1, n]}. */
    long next(SplittableRandom random) {
        double u = random.nextDouble();
        double uz = u * zetan;
        if (uz < 1.0) {
            return 1;
        }
        if (uz < 1.0 + Math.pow(0.5, theta)) {
            return Math.min(2, n);
        }
        long rank = 1 + (long) (n * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(Math.max(rank, 1), n);
    }
}
