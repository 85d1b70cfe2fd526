package io.sovia.examples;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The JDKs forked JVMs may run on: this JVM's, or another one installed where {@code .ci/run} looks. */
final class Jdks {
    private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

    private Jdks() {
    }

    /**
     * A JDK of at least {@code feature}: this JVM's if it is one, else the first {@code /usr/lib/jvm/temurin-25*}
     * (where {@code .ci/run} finds its second JDK) that is; empty if there is none.
     */
    static Optional<Path> atLeast(int feature) throws IOException {
        if (Runtime.version().feature() >= feature) {
            return Optional.of(Path.of(System.getProperty("java.home")));
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (DirectoryStream<Path> homes = Files.newDirectoryStream(jvms, "temurin-25*")) {
            for (Path home : homes) {
                if (Files.isExecutable(home.resolve("bin/java")) && feature(home) >= feature) {
                    return Optional.of(home);
                }
            }
        }
        return Optional.empty();
    }

    /** The feature release of the JDK at {@code home}, from its {@code release} file (this JVM's own if none). */
    static int feature(Path home) {
        if (home.equals(Path.of(System.getProperty("java.home")))) {
            return Runtime.version().feature();
        }
        try {
            Matcher m = VERSION.matcher(Files.readString(home.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
