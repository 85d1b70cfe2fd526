package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.commons.net.ftp.FTP;
import org.apache.commons.net.ftp.FTPClient;

/**
 * An Apache MINA FtpServer and a commons-net {@code FTPClient} that stores and retrieves a 50 MiB
 * pseudo-random file twice: in active mode (the client listens, the server connects back) and in
 * passive mode (the server listens), each checked by SHA-256. Every file it writes is deleted.
 * Usage: {@code FtpApp [both | server | client <port>]}.
 */
public final class FtpApp {

    private static final long FILE_SIZE = 50L << 20;
    private static final long FILE_SEED = 50;
    private static final String USER = "demo";
    private static final String PASSWORD = "demo-password";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private FtpApp() {
    }

    public static void main(String[] args) {
        DemoSupport.run(args, FtpApp::startServer, FtpApp::runClient);
    }

    private static DemoSupport.Server startServer() throws Exception {
        Path home = Files.createTempDirectory("ftp-demo-home");
        try {
            LocalFtpServer ftp = LocalFtpServer.start(home, USER, PASSWORD);
            return new DemoSupport.Server(ftp.port(), () -> {
                ftp.server().stop();
                DemoSupport.deleteRecursively(home);
            });
        } catch (Exception e) {
            DemoSupport.deleteRecursively(home);
            throw e;
        }
    }

    private static String runClient(int port) throws Exception {
        Path dir = Files.createTempDirectory("ftp-demo-client");
        try {
            Path original = dir.resolve("original.bin");
            DemoSupport.writePseudoRandomFile(original, FILE_SEED, FILE_SIZE);
            String sha = DemoSupport.sha256(original);
            FTPClient ftp = new FTPClient();
            ftp.setConnectTimeout((int) TIMEOUT.toMillis());
            ftp.setDefaultTimeout((int) TIMEOUT.toMillis());
            ftp.setDataTimeout(TIMEOUT);
            ftp.connect("127.0.0.1", port);
            try {
                check(ftp, ftp.login(USER, PASSWORD), "login");
                check(ftp, ftp.setFileType(FTP.BINARY_FILE_TYPE), "TYPE I");
                String active = roundTrip(ftp, dir, original, sha, true);
                String passive = roundTrip(ftp, dir, original, sha, false);
                check(ftp, ftp.logout(), "QUIT");
                return "active[" + active + "] passive[" + passive + "]";
            } finally {
                ftp.disconnect();
            }
        } finally {
            DemoSupport.deleteRecursively(dir);
        }
    }

    /** Stores the file, retrieves it into a second local file, compares, and removes both copies. */
    private static String roundTrip(FTPClient ftp, Path dir, Path original, String sha, boolean active)
            throws IOException {
        if (active) {
            ftp.enterLocalActiveMode();
            ftp.setActiveExternalIPAddress("127.0.0.1"); // the client's data listener binds here too
        } else {
            ftp.enterLocalPassiveMode();
        }
        String name = active ? "active.bin" : "passive.bin";
        try (InputStream in = Files.newInputStream(original)) {
            check(ftp, ftp.storeFile(name, in), "STOR " + name);
        }
        String stored = ftp.getSize(name);
        Path copy = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(copy)) {
            check(ftp, ftp.retrieveFile(name, out), "RETR " + name);
        }
        check(ftp, ftp.deleteFile(name), "DELE " + name);
        long retrieved = Files.size(copy);
        String got = DemoSupport.sha256(copy);
        Files.delete(copy);
        if (retrieved != FILE_SIZE || !got.equals(sha)) {
            throw new IOException(name + " came back as " + retrieved + " bytes with sha256 " + got);
        }
        return "stored=" + stored + " retrieved=" + retrieved + " sha256=" + got;
    }

    private static void check(FTPClient ftp, boolean ok, String what) throws IOException {
        if (!ok) {
            throw new IOException(what + " failed: " + ftp.getReplyString().trim());
        }
    }
}
