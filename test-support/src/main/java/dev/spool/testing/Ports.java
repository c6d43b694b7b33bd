package dev.spool.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

/**
 * Free TCP ports for node listeners, chosen <em>below</em> the kernel's ephemeral range. A node
 * keeps its ports across restarts; a port from the ephemeral range (what binding port 0 gives)
 * could be taken as the local port of some client's outgoing connection while the node is down, and
 * the restart would then fail to bind. Both cluster harnesses take their ports from here.
 *
 * <p>Thread-safe (synchronized).
 */
public final class Ports {
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final int LOWEST = 10_000;
  private static final int ATTEMPTS = 1_000;

  private final Random random = new Random();
  private final Set<Integer> handedOut = new HashSet<>();
  private final int highestExclusive;

  public Ports() {
    this.highestExclusive = ephemeralStart();
  }

  /** A port nothing listens on at {@code host} now and that this instance has not handed out. */
  public synchronized int next(String host) {
    for (int i = 0; i < ATTEMPTS; i++) {
      int port = LOWEST + random.nextInt(highestExclusive - LOWEST);
      if (handedOut.contains(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(host, port));
        handedOut.add(port);
        return port;
      } catch (IOException e) {
        // in use: try another
      }
    }
    throw new IllegalStateException(
        "no free port in [" + LOWEST + ", " + highestExclusive + ") on " + host);
  }

  private static int ephemeralStart() {
    try {
      String[] range = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
      int start = Integer.parseInt(range[0]);
      return start > LOWEST + 1_000 ? start : 32_768;
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }
}
