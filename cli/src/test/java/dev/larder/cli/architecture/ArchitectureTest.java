package dev.larder.cli.architecture;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

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
        // The server's test-jar (TestPki for the CLI's TLS tests) is on this classpath too: its classes are tests.
        larder = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .withImportOption(location -> !location.contains("-tests.jar"))
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

    /** One rule: built for a root package, with the breach a fixture commits against it (from, to). */
    record Rule(String name, Function<String, ArchRule> forRoot, String from, String to) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Rule> rules() {
        return List.of(
                new Rule("no package cycles", LarderRules::noPackageCycles, "server.http", "server.offload"),
                // The fixtures leave most layers empty; in the product every layer must have classes.
                new Rule("requests travel down the layers", root -> LarderRules.layers(root, root.equals(FIXTURE)),
                        "offload.ReachesUp", "http.Handler"),
                new Rule("storage knows no Netty", LarderRules::storageKnowsNoNetty, "storage.NettyInStorage",
                        "io.netty"),
                new Rule("only the CLI builds options", LarderRules::onlyCliBuildsOptions, "server.BuildsOptions",
                        "ServerOptions.builder"),
                new Rule("only the CLI reads the environment", LarderRules::onlyCliBuildsOptions,
                        "server.ReadsFlags", "System.getenv"),
                new Rule("only the CLI uses picocli", LarderRules::onlyCliBuildsOptions, "server.ReadsFlags",
                        "picocli"),
                new Rule("bench knows no server", LarderRules::benchKnowsNoServer, "bench.PeeksInside",
                        "offload.ReachesUp"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void holdsForLarderAndFailsOnItsBreach(Rule rule) {
        rule.forRoot().apply("dev.larder").check(larder);
        assertBroken(rule.forRoot().apply(FIXTURE), rule.from(), rule.to());
    }

    /** {@code rule} fails on the fixtures, and its report names both ends of the breach. */
    private static void assertBroken(ArchRule rule, String from, String to) {
        EvaluationResult result = rule.evaluate(fixture);
        assertTrue(result.hasViolation(), rule.getDescription());
        String report = String.join("\n", result.getFailureReport().getDetails());
        assertTrue(report.contains(from) && report.contains(to), "expected " + from + " -> " + to + " in:\n" + report);
    }
}
