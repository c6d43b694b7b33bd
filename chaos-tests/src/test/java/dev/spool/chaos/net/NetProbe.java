package dev.spool.chaos.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A tiny server run inside a network namespace by {@link NetNamespacesIntegrationTest} (via {@code
 * ip netns exec NS java -cp ... NetProbe UDP_PORT TCP_PORT}): prints {@code UDP <payload>} for
 * every datagram it receives and echoes TCP. Prints {@code READY} once both sockets are bound.
 * Exits when its standard input closes, so it cannot outlive the test.
 */
public final class NetProbe {
  private NetProbe() {}

  public static void main(String[] args) throws IOException {
    DatagramSocket udp =
        new DatagramSocket(new InetSocketAddress("0.0.0.0", Integer.parseInt(args[0])));
    ServerSocket tcp = new ServerSocket();
    tcp.bind(new InetSocketAddress("0.0.0.0", Integer.parseInt(args[1])));
    daemon(
        () -> {
          byte[] buf = new byte[512];
          while (true) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            udp.receive(p);
            String msg = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8).strip();
            synchronized (System.out) {
              System.out.println("UDP " + msg);
              System.out.flush();
            }
          }
        });
    daemon(
        () -> {
          while (true) {
            Socket s = tcp.accept();
            daemon(
                () -> {
                  try (s;
                      InputStream in = s.getInputStream();
                      OutputStream out = s.getOutputStream()) {
                    in.transferTo(out);
                  }
                });
          }
        });
    synchronized (System.out) {
      System.out.println("READY");
      System.out.flush();
    }
    while (System.in.read() >= 0) {
      // Wait for the test to close our stdin (or die).
    }
    System.exit(0);
  }

  private interface IoRunnable {
    void run() throws IOException;
  }

  private static void daemon(IoRunnable r) {
    Thread t =
        new Thread(
            () -> {
              try {
                r.run();
              } catch (IOException e) {
                // Connection ended; nothing to report in a probe.
              }
            });
    t.setDaemon(true);
    t.start();
  }
}
