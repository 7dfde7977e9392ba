package dev.larder.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar manifest ({@code dev} when run from classes). */
final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = Larder.class.getPackage().getImplementationVersion();
        return new String[] {"larder " + (version == null ? "dev" : version),
                "JVM: ${java.version} (${java.vendor} ${java.vm.name} ${java.vm.version})",
                "OS: ${os.name} ${os.version} ${os.arch}"};
    }
}
