package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/speed-targets.sh} judges each of issue 12's targets from a speed.sh CSV: met or missed by the
 * figures, with the ratio it judged by, and nothing for a target whose figures the CSV lacks.
 */
class SpeedTargetsTest {
    private static final Path SCRIPT = Path.of(System.getProperty("basedir", System.getProperty("user.dir")))
            .toAbsolutePath().resolve("speed-targets.sh");

    @TempDir
    Path dir;

    @Test
    @Timeout(30)
    void eachTargetIsMetOrMissedByItsFigures() throws Exception {
        Path csv = dir.resolve("speed.csv");
        Files.write(csv, List.of(
                "section,pinning,api,size,agent,value,unit",
                "rtt,same-core,nio,64,no,13.0,rtt_us",
                "rtt,same-core,nio,64,yes,4.0,rtt_us",
                "rtt,same-core,unix-socket,64,reference,9.0,rtt_us",
                "rtt,separate-cores,nio,64,no,50.0,rtt_us",
                "rtt,separate-cores,nio,64,yes,0.5,rtt_us",
                "rtt,separate-cores,bare-ring,64,reference,0.2,rtt_us",
                "streams,same-core,direct,64,no,50,MiB/s",
                "streams,same-core,direct,64,yes,1100,MiB/s",
                "streams,same-core,direct,4096,no,1000,MiB/s",
                "streams,same-core,direct,4096,yes,3000,MiB/s",
                "streams,same-core,file,65536,no,2000,MiB/s",
                "streams,same-core,file,65536,yes,1900,MiB/s",
                "setup,same-core,net,1,no,60,us/connection",
                "setup,same-core,net,1,yes,30,us/connection"));
        Process p = new ProcessBuilder("bash", SCRIPT.toString(), csv.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the script did not end");
        assertEquals(0, p.exitValue(), out);

        assertLine(out, "64 B RTT nio, separate cores, within 2x of the bare ring", "2.50x the ring", "missed");
        assertLine(out, "64 B RTT nio, separate cores, >= 10x below TCP on one core", "26.0x", "met");
        assertLine(out, "64 B RTT nio, same core, no slower than a UNIX socket", "4.00 against 9.00 us", "met");
        assertLine(out, "streams direct, same-core", "4096B:3.00x<4x", "missed");
        assertLine(out, "streams file, same-core: >= TCP", "65536B:0.95x<1x(below TCP)", "missed");
        assertLine(out, "connection setup, same-core", "2.00x", "met");
        assertTrue(!out.contains("selector") && !out.contains("sleeping") && !out.contains("separate-cores: >= TCP"),
                "a target without figures must not be judged:\n" + out);
    }

    @Test
    @Timeout(30)
    void aMissingCsvIsAnError() throws Exception {
        Process p = new ProcessBuilder("bash", SCRIPT.toString(), dir.resolve("none.csv").toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the script did not end");
        assertEquals(1, p.exitValue(), out);
        assertTrue(out.contains("no CSV"), out);
    }

    private static void assertLine(String out, String target, String measured, String verdict) {
        String line = out.lines().filter(l -> l.contains(target)).findFirst().orElse(null);
        assertTrue(line != null, "no line for " + target + " in\n" + out);
        assertTrue(line.contains(measured) && line.trim().endsWith(verdict), "expected " + measured + " and "
                + verdict + " in: " + line);
    }
}
