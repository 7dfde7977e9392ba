package dev.larder.cli;

import dev.larder.bench.UncommonTraps;
import dev.larder.server.config.CoalesceWait;
import dev.larder.server.config.ForegroundPolicy;
import dev.larder.server.config.LimitAlgorithm;
import dev.larder.server.config.MissReads;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.TransportKind;
import dev.larder.storage.BlockCacheType;
import dev.larder.storage.TableWarming;
import java.util.OptionalInt;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code java -jar larder.jar}: the server and its tools. */
@Command(name = "larder",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Asynchronous HTTP key-value storage on RocksDB.",
        subcommands = {ServeCommand.class, BenchCommand.class, TuneCommand.class, CommandLine.HelpCommand.class})
public final class Larder implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        if (GeneratorJvm.shouldRelaunch(args, System.getenv(), UncommonTraps::ofThisJvm)) {
            OptionalInt status = GeneratorJvm.relaunch(args);
            if (status.isPresent()) {
                System.exit(status.getAsInt());
            }
        }
        System.exit(commandLine().execute(args));
    }

    /**
     * The command tree with Larder's converters; tests use it to run commands in-process. A mode-valued option is
     * read by its flag spelling ({@link FlagSpellings}).
     */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new Larder())
                .registerConverter(java.time.Duration.class, new DurationConverter())
                .registerConverter(TableWarming.class, FlagSpellings::tableWarming)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler(Larder::badInput);
        FlagSpellings.register(commandLine, TransportKind.class, TransportKind::flag);
        FlagSpellings.register(commandLine, RejectionMode.class, RejectionMode::flag);
        FlagSpellings.register(commandLine, LimitAlgorithm.class, LimitAlgorithm::flag);
        FlagSpellings.register(commandLine, BlockCacheType.class, BlockCacheType::flag);
        FlagSpellings.register(commandLine, ForegroundPolicy.class, ForegroundPolicy::flag);
        FlagSpellings.register(commandLine, CoalesceWait.class, CoalesceWait::flag);
        FlagSpellings.register(commandLine, MissReads.class, MissReads::flag);
        return commandLine;
    }

    /**
     * A bad flag or LARDER_* value: one line naming it, then exit 2. picocli's default would print the whole usage
     * after it, and in a container's log (or a supervisor's) the reason drowns in forty lines of help.
     */
    private static int badInput(CommandLine.ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        command.getErr().println(command.getCommandSpec().qualifiedName() + ": " + e.getMessage()
                + " (" + command.getCommandSpec().qualifiedName() + " --help lists every flag)");
        command.getErr().flush();
        return command.getCommandSpec().exitCodeOnInvalidInput();
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
