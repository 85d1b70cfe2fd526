package io.sovia.examples;

import java.nio.file.Path;
import java.util.List;
import org.apache.ftpserver.DataConnectionConfigurationFactory;
import org.apache.ftpserver.FtpServer;
import org.apache.ftpserver.FtpServerFactory;
import org.apache.ftpserver.ftplet.FtpException;
import org.apache.ftpserver.ftplet.UserManager;
import org.apache.ftpserver.listener.ListenerFactory;
import org.apache.ftpserver.usermanager.PropertiesUserManagerFactory;
import org.apache.ftpserver.usermanager.impl.BaseUser;
import org.apache.ftpserver.usermanager.impl.ConcurrentLoginPermission;
import org.apache.ftpserver.usermanager.impl.WritePermission;

/**
 * An Apache FtpServer on 127.0.0.1 and an ephemeral port, with one user (in memory, no file) who may write to
 * {@code home}; data connections on 127.0.0.1 too, passive ports any free one. What the FTP demo and the FTP
 * benchmark both serve.
 *
 * @param server the running server
 * @param port   its control port
 */
record LocalFtpServer(FtpServer server, int port) {
    private static final String LISTENER = "default";

    static LocalFtpServer start(Path home, String userName, String password) throws FtpException {
        UserManager users = new PropertiesUserManagerFactory().createUserManager();
        BaseUser user = new BaseUser();
        user.setName(userName);
        user.setPassword(password);
        user.setHomeDirectory(home.toString());
        user.setAuthorities(List.of(new WritePermission(), new ConcurrentLoginPermission(4, 4)));
        users.save(user);

        DataConnectionConfigurationFactory data = new DataConnectionConfigurationFactory();
        data.setPassiveAddress("127.0.0.1");
        data.setActiveLocalAddress("127.0.0.1");
        ListenerFactory listener = new ListenerFactory();
        listener.setServerAddress("127.0.0.1");
        listener.setPort(0);
        listener.setDataConnectionConfiguration(data.createDataConnectionConfiguration());

        FtpServerFactory factory = new FtpServerFactory();
        factory.setUserManager(users);
        factory.addListener(LISTENER, listener.createListener());
        FtpServer server = factory.createServer();
        server.start();
        return new LocalFtpServer(server, factory.getListener(LISTENER).getPort());
    }
}
