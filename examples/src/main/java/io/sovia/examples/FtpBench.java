package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.net.ftp.FTP;
import org.apache.commons.net.ftp.FTPClient;

/**
 * SOVIA's FTP experiment (its Table I): an Apache FtpServer and a commons-net client in two JVMs move one file
 * from RAM to RAM, uploads (STOR) and downloads (RETR), in active and passive mode, and time each transfer.
 * <ul>
 *   <li>{@code FtpBench server HOME}: serves HOME, prints {@code PORT n}, stops when standard input ends;</li>
 *   <li>{@code FtpBench client PORT FILE ROUNDS}: transfers FILE (which must sit in RAM, a tmpfs) ROUNDS times
 *   each way in each mode, printing {@code RESULT mode=.. op=.. round=.. bytes=.. MBps=..} per transfer, and checks
 *   that the last copy it retrieved has FILE's SHA-256.</li>
 * </ul>
 * MB/s are 10^6 bytes per second of the transfer command (data connection set up, bytes moved, reply read).
 */
public final class FtpBench {
    private static final String USER = "bench";
    private static final String PASSWORD = "bench-password";
    private static final int TIMEOUT_MILLIS = 60_000;

    private FtpBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("server")) {
            server(Path.of(args[1]));
        } else if (args.length == 4 && args[0].equals("client")) {
            client(Integer.parseInt(args[1]), Path.of(args[2]), Integer.parseInt(args[3]));
        } else {
            System.err.println("usage: FtpBench server HOME | client PORT FILE ROUNDS");
            System.exit(2);
        }
        System.exit(0);
    }

    private static void server(Path home) throws Exception {
        LocalFtpServer ftp = LocalFtpServer.start(home, USER, PASSWORD);
        System.out.println("PORT " + ftp.port());
        System.out.flush();
        System.in.transferTo(OutputStream.nullOutputStream());
        ftp.server().stop();
    }

    private static void client(int port, Path file, int rounds) throws Exception {
        long size = Files.size(file);
        String sha = DemoSupport.sha256(file);
        Path copy = file.resolveSibling(file.getFileName() + ".copy");
        String name = "bench-" + ProcessHandle.current().pid() + ".bin";
        FTPClient ftp = new FTPClient();
        ftp.setConnectTimeout(TIMEOUT_MILLIS);
        ftp.setDefaultTimeout(TIMEOUT_MILLIS);
        ftp.connect("127.0.0.1", port);
        try {
            check(ftp, ftp.login(USER, PASSWORD), "login");
            check(ftp, ftp.setFileType(FTP.BINARY_FILE_TYPE), "TYPE I");
            for (String mode : new String[] {"passive", "active"}) {
                if (mode.equals("active")) {
                    ftp.enterLocalActiveMode();
                    ftp.setActiveExternalIPAddress("127.0.0.1");
                } else {
                    ftp.enterLocalPassiveMode();
                }
                for (int round = 1; round <= rounds; round++) {
                    long start = System.nanoTime();
                    try (InputStream in = Files.newInputStream(file)) {
                        check(ftp, ftp.storeFile(name, in), "STOR");
                    }
                    report(mode, "STOR", round, size, start);
                    start = System.nanoTime();
                    try (OutputStream out = Files.newOutputStream(copy)) {
                        check(ftp, ftp.retrieveFile(name, out), "RETR");
                    }
                    report(mode, "RETR", round, size, start);
                }
                String got = DemoSupport.sha256(copy);
                if (Files.size(copy) != size || !got.equals(sha)) {
                    throw new IOException(mode + " copy differs: " + Files.size(copy) + " bytes, sha256 " + got);
                }
            }
            check(ftp, ftp.deleteFile(name), "DELE");
            check(ftp, ftp.logout(), "QUIT");
        } finally {
            ftp.disconnect();
            Files.deleteIfExists(copy);
        }
        System.out.println("RESULT sha256=" + sha + " verified");
    }

    private static void report(String mode, String op, int round, long bytes, long start) {
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("RESULT mode=%s op=%s round=%d bytes=%d MBps=%.1f%n", mode, op, round, bytes,
                bytes / 1e6 / seconds);
    }

    private static void check(FTPClient ftp, boolean ok, String what) throws IOException {
        if (!ok) {
            throw new IOException(what + " failed: " + ftp.getReplyString().trim());
        }
    }
}
