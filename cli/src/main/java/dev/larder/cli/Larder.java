package dev.larder.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code java -jar larder.jar}: the server and its tools. */
@Command(name = "larder",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Asynchronous HTTP key-value storage on RocksDB.",
        subcommands = {ServeCommand.class, BenchCommand.class, CommandLine.HelpCommand.class})
public final class Larder implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command tree with Larder's converters; tests use it to run commands in-process. */
    public static CommandLine commandLine() {
        return new CommandLine(new Larder())
                .registerConverter(java.time.Duration.class, new DurationConverter())
                .setCaseInsensitiveEnumValuesAllowed(true);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
