package io.sovia.agent.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code java -jar sovia.jar COMMAND}: the operator's commands, run without the agent. Exit codes: 0 all is well,
 * 1 a check failed or nothing was found (as each command documents), 2 bad usage.
 */
@Command(name = "sovia", mixinStandardHelpOptions = true, versionProvider = SoviaCli.Version.class,
        subcommands = {SsCommand.class, DoctorCommand.class},
        description = "Operates Sovia, the JVM socket accelerator: list its live connections (ss), check what each"
                + " path needs (doctor). Run apps under it with bin/sovia or -javaagent:sovia.jar.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:all is well", "1:a check failed or nothing was found", "2:bad usage"})
public final class SoviaCli implements Runnable {
    @Spec
    private CommandSpec spec;

    /** Entry point named by the jar's {@code Main-Class}. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command line and returns its exit code. */
    static int run(String... args) {
        return new CommandLine(new SoviaCli()).execute(args);
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "name a command: ss or doctor");
    }

    /** The jar's version, from its manifest when built by Maven. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = SoviaCli.class.getPackage().getImplementationVersion();
            return new String[] {"sovia " + (v == null ? "(development build)" : v)};
        }
    }
}
