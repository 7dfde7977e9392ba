package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dashboard-query reader finds series and matchers, and nothing else. */
class DashboardQueriesTest {

    @Test
    void functionsAggregationsGroupingsAndRangesAreNotSeries() {
        List<DashboardQueries.Selector> selectors = DashboardQueries.selectors("histogram_quantile(0.99, sum by (le, "
                + "uri) (rate(http_server_requests_seconds_bucket{uri!=\"/v0/status\"}[$__rate_interval])))");
        assertEquals(List.of(new DashboardQueries.Selector("http_server_requests_seconds_bucket",
                Map.of("uri", "!=/v0/status"))), selectors);
    }

    @Test
    void arithmeticBetweenSelectorsYieldsEach() {
        List<DashboardQueries.Selector> selectors = DashboardQueries.selectors(
                "rate(a_total[1m]) / (rate(a_total[1m]) + rate(b_total{x=\"1\", y=~\"2.*\"}[1m])) * 100 and on (i) c");
        assertEquals(List.of("a_total", "a_total", "b_total", "c"),
                selectors.stream().map(DashboardQueries.Selector::metric).toList());
        assertEquals(Map.of("x", "=1", "y", "=~2.*"), selectors.get(2).matchers());
    }

    @Test
    void grafanaVariablesBecomePromQl() {
        assertEquals("rate(x{job=~\".+\",instance=~\".+\"}[1m])",
                DashboardQueries.forPrometheus("rate(x{job=~\"$job\",instance=~\"$instance\"}[$__rate_interval])"));
    }
}
