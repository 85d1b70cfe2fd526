package io.sovia.agent.cli;

import io.sovia.spi.ops.LiveEntry;
import io.sovia.spi.ops.LiveFile;
import io.sovia.spi.stats.SoviaStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code sovia ss}: this user's live accelerated listeners and connections on this host, from the entries each
 * JVM under the agent publishes ({@link LiveFile}); at most {@code sovia.live.millis} old.
 */
@Command(name = "ss", mixinStandardHelpOptions = true,
        description = "Lists this user's live accelerated listeners and connections on this host (JVMs under the"
                + " agent publish them every second). Exits 1 when there are none.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:something was listed", "1:no listener or connection found", "2:bad usage"})
final class SsCommand implements Callable<Integer> {
    private static final String ROW = "%-8s %-8s %-11s %-24s %-24s %10s %10s %7s %7s %8s%n";

    @Option(names = "--json", description = "one JSON object with an entries array, for scripts")
    private boolean json;

    @Option(names = {"-p", "--pid"}, paramLabel = "PID", description = "only this process")
    private Long pid;

    @Override
    public Integer call() throws IOException {
        List<LiveEntry> entries = LiveFile.read(LiveFile.directory(), pid);
        long now = System.currentTimeMillis();
        PrintStream out = System.out;
        if (json) {
            out.println(toJson(entries, now));
        } else {
            out.printf(ROW, "PID", "PATH", "STATE", "LOCAL", "REMOTE", "SENT", "RECEIVED", "SEND-Q", "RECV-Q", "AGE");
            for (LiveEntry e : entries) {
                out.printf(ROW, e.pid(), e.path(), e.state(), e.local(), e.remote(), e.sent(), e.received(),
                        e.sendQueue(), e.recvQueue(), age(now - e.sinceMillis()));
            }
        }
        return entries.isEmpty() ? 1 : 0;
    }

    private static String age(long millis) {
        long s = Math.max(0, millis / 1000);
        return s < 3600 ? s / 60 + "m" + s % 60 + "s" : s / 3600 + "h" + s % 3600 / 60 + "m";
    }

    static String toJson(List<LiveEntry> entries, long now) {
        StringBuilder sb = new StringBuilder("{\"entries\": [");
        String sep = "";
        for (LiveEntry e : entries) {
            sb.append(sep).append("\n  {\"pid\": ").append(e.pid())
                    .append(", \"kind\": \"").append(e.listener() ? "listener" : "connection")
                    .append("\", \"path\": \"").append(SoviaStats.escape(e.path()))
                    .append("\", \"local\": \"").append(SoviaStats.escape(e.local()))
                    .append("\", \"remote\": ")
                    .append(e.listener() ? "null" : '"' + SoviaStats.escape(e.remote()) + '"')
                    .append(", \"state\": \"").append(SoviaStats.escape(e.state()))
                    .append("\", \"bytesSent\": ").append(e.sent())
                    .append(", \"bytesReceived\": ").append(e.received())
                    .append(", \"sendQueue\": ").append(e.sendQueue())
                    .append(", \"recvQueue\": ").append(e.recvQueue())
                    .append(", \"ageMillis\": ").append(Math.max(0, now - e.sinceMillis())).append('}');
            sep = ",";
        }
        return sb.append(entries.isEmpty() ? "]}" : "\n]}").toString();
    }
}
