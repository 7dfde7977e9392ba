package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The bisection of {@code bench tail --sustainable}, against a stub server. */
class SustainableSearchTest {

    @Test
    void eachTrialStartsAfterTheServerHasSettled() {
        try (StubServer server = StubServer.serial(1000)) {
            TailOptions tail = new TailOptions(Duration.ZERO, Duration.ofMillis(500), Duration.ofMillis(500), 0.5,
                    TailPhase.parseList("put,get"), Workload.parseMix("get=90,put=10"), Slo.parse("p99=10ms"),
                    Duration.ofSeconds(1), null, true, Duration.ofMillis(500), 2);
            BenchOptions options = BenchOptions.builder().target(Target.external("stub", server.url()))
                    .connections(4).threads(1).timeout(Duration.ofSeconds(5)).commandLine("test").build();
            // What the stub had answered each time the search asked for the server to settle.
            List<Long> answeredAtEachWait = new ArrayList<>();
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            TailResult.SustainableResult result = SustainableSearch.find(new TailSession(options, tail), tail,
                    server.url(), "stub", new RequestEncoder(server.url(), List.of(), 64, 42), new AtomicLong(),
                    TailPhase.GET, 800, 800, () -> answeredAtEachWait.add(server.requests()),
                    new PrintStream(text, true, StandardCharsets.UTF_8));

            assertEquals(2, result.trials().size());
            assertEquals(2, answeredAtEachWait.size(), "one wait per trial");
            assertEquals(0, answeredAtEachWait.get(0), "the first wait comes before any request");
            assertTrue(answeredAtEachWait.get(1) > 0, "the second wait comes after the first trial");
            assertTrue(server.requests() > answeredAtEachWait.get(1), "and before the second");
        }
    }
}
