package dev.larder.cli.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.lang.ArchRule;
import dev.larder.bench.BenchOptions;
import dev.larder.server.admin.AdminOptions;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.security.SecurityOptions;
import dev.larder.storage.StoreOptions;
import java.util.Set;

/**
 * The structure Larder promises, as ArchUnit rules over the packages below {@code root}: {@code dev.larder} for the
 * product, another root for the fixtures that prove each rule can fail. {@code docs/architecture.md} draws the same.
 */
final class LarderRules {

    private static final Set<String> OPTIONS = Set.of(ServerOptions.class.getName(), StoreOptions.class.getName(),
            BenchOptions.class.getName(), AdminOptions.class.getName(), SecurityOptions.class.getName());
    private static final Set<String> BUILDING = Set.of("<init>", "builder", "toBuilder", "defaults", "build");

    private LarderRules() {
    }

    /** No two packages import each other, however indirectly. */
    static ArchRule noPackageCycles(String root) {
        return slices().matching(root + ".(**)").should().beFreeOfCycles();
    }

    /**
     * Who may use whom, in the order a request travels: front door → http → entity/range → offload, and storage
     * reached only from the work a worker runs. {@code optionalLayers} lets a fixture leave layers empty.
     */
    static ArchRule layers(String root, boolean optionalLayers) {
        String server = root + ".server";
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
                .withOptionalLayers(optionalLayers)
                .layer("cli").definedBy(root + ".cli..")
                .layer("bench").definedBy(root + ".bench..")
                .layer("edge").definedBy(server + ".admin..", server + ".metrics..")
                .layer("front door").definedBy(server)
                .layer("http").definedBy(server + ".http..")
                .layer("calls").definedBy(server + ".entity..", server + ".range..")
                .layer("context").definedBy(server + ".context..")
                .layer("answer").definedBy(server + ".answer..")
                .layer("offload").definedBy(server + ".offload..")
                .layer("config").definedBy(server + ".config..")
                .layer("security").definedBy(server + ".security..")
                .layer("threads").definedBy(server + ".threads..")
                .layer("storage").definedBy(root + ".storage..")
                .whereLayer("cli").mayNotBeAccessedByAnyLayer()
                .whereLayer("bench").mayOnlyBeAccessedByLayers("cli")
                .whereLayer("edge").mayOnlyBeAccessedByLayers("cli")
                .whereLayer("front door").mayOnlyBeAccessedByLayers("cli", "edge")
                .whereLayer("http").mayOnlyBeAccessedByLayers("front door", "edge")
                .whereLayer("calls").mayOnlyBeAccessedByLayers("http")
                .whereLayer("context").mayOnlyBeAccessedByLayers("front door", "http", "calls")
                .whereLayer("answer").mayOnlyBeAccessedByLayers("http", "calls")
                .whereLayer("offload").mayOnlyBeAccessedByLayers("front door", "http", "calls", "context")
                .whereLayer("config").mayOnlyBeAccessedByLayers("cli", "edge", "front door", "http", "calls",
                        "context", "answer", "offload")
                .whereLayer("security").mayOnlyBeAccessedByLayers("cli", "edge", "front door", "http")
                // cli: --jit-nice sets the JVM's compiler threads (not the server's) through ThreadNice.
                .whereLayer("threads").mayOnlyBeAccessedByLayers("cli", "front door", "offload")
                .whereLayer("storage").mayOnlyBeAccessedByLayers("cli", "edge", "front door", "calls", "context");
    }

    /** The storage module is RocksDB behind a plain interface: no Netty type in it. */
    static ArchRule storageKnowsNoNetty(String root) {
        return noClasses().that().resideInAPackage(root + ".storage..")
                .should().dependOnClassesThat().resideInAPackage("io.netty..")
                .because("storage is called from workers and tests alike and hands out plain byte arrays");
    }

    /**
     * Flags become options in the CLI and nowhere else: no other package reads picocli or the environment, or
     * builds an options record (the records' own builders aside, and the tuner's per-candidate bench options).
     */
    static ArchRule onlyCliBuildsOptions(String root) {
        DescribedPredicate<JavaCall<?>> buildsOptions = DescribedPredicate.describe("builds an options record",
                call -> OPTIONS.contains(outermost(call.getTargetOwner().getName()))
                        && BUILDING.contains(call.getName()));
        return noClasses().that().resideOutsideOfPackage(root + ".cli..")
                .and(DescribedPredicate.describe("are not an options record",
                        c -> !OPTIONS.contains(outermost(c.getName()))))
                // The one exception: `larder tune` runs a measurement per candidate, each a BenchOptions the tuner
                // derives from the TuneOptions the CLI built (the candidate's flags are its search space).
                .and(DescribedPredicate.describe("are not the tuner",
                        c -> !outermost(c.getName()).equals(root + ".bench.Tuner")))
                .should().callCodeUnitWhere(buildsOptions)
                .orShould().dependOnClassesThat().resideInAPackage("picocli..")
                .orShould().callMethod(System.class, "getenv", String.class)
                .orShould().callMethod(System.class, "getenv")
                .because("options are immutable records built once from flags by the CLI and passed down");
    }

    /** The load generator talks to a server over HTTP only: nothing of the server, the store or the CLI in it. */
    static ArchRule benchKnowsNoServer(String root) {
        return noClasses().that().resideInAPackage(root + ".bench..")
                .should().dependOnClassesThat().resideInAnyPackage(root + ".server..", root + ".storage..",
                        root + ".cli..")
                .because("bench measures any HTTP server, Larder's or nginx, the same way");
    }

    private static String outermost(String className) {
        int nested = className.indexOf('$');
        return nested < 0 ? className : className.substring(0, nested);
    }
}
