package dev.larder.cli.architecture;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link LarderRules} hold for every module's production classes (storage, server, bench, cli), and each rule fails
 * on a fixture under {@code dev.larder.cli.architecture.fixture} that breaks it.
 */
class ArchitectureTest {

    private static final String FIXTURE = "dev.larder.cli.architecture.fixture";

    private static JavaClasses larder;
    private static JavaClasses fixture;

    @BeforeAll
    static void importClasses() {
        larder = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("dev.larder");
        fixture = new ClassFileImporter().importPackages(FIXTURE);
    }

    @Test
    void everyModuleIsChecked() {
        for (String module : List.of("dev.larder.storage.Store", "dev.larder.server.LarderServer",
                "dev.larder.server.offload.Offload", "dev.larder.bench.Bench", "dev.larder.cli.Larder")) {
            assertTrue(larder.contain(module), module + " was not imported");
        }
        assertFalse(larder.stream().anyMatch(c -> c.getPackageName().startsWith(FIXTURE)), "fixtures leaked in");
    }

    @Test
    void noPackageCycles() {
        LarderRules.noPackageCycles("dev.larder").check(larder);
        assertBroken(LarderRules.noPackageCycles(FIXTURE), "server.http", "server.offload");
    }

    @Test
    void requestsTravelDownTheLayers() {
        LarderRules.layers("dev.larder", false).check(larder);
        assertBroken(LarderRules.layers(FIXTURE, true), "offload.ReachesUp", "http.Handler");
    }

    @Test
    void storageKnowsNoNetty() {
        LarderRules.storageKnowsNoNetty("dev.larder").check(larder);
        assertBroken(LarderRules.storageKnowsNoNetty(FIXTURE), "storage.NettyInStorage", "io.netty");
    }

    @Test
    void onlyTheCliBuildsOptionsFromFlags() {
        LarderRules.onlyCliBuildsOptions("dev.larder").check(larder);
        assertBroken(LarderRules.onlyCliBuildsOptions(FIXTURE), "server.BuildsOptions", "ServerOptions.builder");
        assertBroken(LarderRules.onlyCliBuildsOptions(FIXTURE), "server.ReadsFlags", "System.getenv");
        assertBroken(LarderRules.onlyCliBuildsOptions(FIXTURE), "server.ReadsFlags", "picocli");
    }

    @Test
    void benchKnowsNoServer() {
        LarderRules.benchKnowsNoServer("dev.larder").check(larder);
        assertBroken(LarderRules.benchKnowsNoServer(FIXTURE), "bench.PeeksInside", "offload.ReachesUp");
    }

    /** {@code rule} fails on the fixtures, and its report names both ends of the breach. */
    private static void assertBroken(ArchRule rule, String from, String to) {
        EvaluationResult result = rule.evaluate(fixture);
        assertTrue(result.hasViolation(), rule.getDescription());
        String report = String.join("\n", result.getFailureReport().getDetails());
        assertTrue(report.contains(from) && report.contains(to), "expected " + from + " -> " + to + " in:\n" + report);
    }
}
