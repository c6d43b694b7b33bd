package dev.spool.broker.network;

import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Kafka's {@code max.connections} (all listeners of the broker together) and {@code
 * max.connections.per.ip} (one client address, all listeners together): a connection beyond either
 * is closed as soon as it is accepted, before anything is read from it.
 *
 * <p>Thread-safe: every event loop admits and releases connections.
 */
final class ConnectionLimits {
  private final int maxConnections;
  private final int maxPerIp;
  private final AtomicInteger total = new AtomicInteger();
  private final Map<InetAddress, Integer> perIp = new ConcurrentHashMap<>();

  ConnectionLimits(int maxConnections, int maxPerIp) {
    this.maxConnections = maxConnections;
    this.maxPerIp = maxPerIp;
  }

  /**
   * Counts a new connection from {@code ip} and returns null, or returns why it is refused (nothing
   * is counted then). Every admitted connection is {@link #release}d once.
   */
  String admit(InetAddress ip) {
    if (total.incrementAndGet() > maxConnections) {
      total.decrementAndGet();
      return "max.connections (" + maxConnections + ") reached";
    }
    boolean[] refused = {false};
    perIp.compute(
        ip,
        (k, n) -> {
          int now = n == null ? 0 : n;
          if (now >= maxPerIp) {
            refused[0] = true;
            return n;
          }
          return now + 1;
        });
    if (refused[0]) {
      total.decrementAndGet();
      return "max.connections.per.ip (" + maxPerIp + ") reached for " + ip.getHostAddress();
    }
    return null;
  }

  void release(InetAddress ip) {
    perIp.computeIfPresent(ip, (k, n) -> n <= 1 ? null : n - 1);
    total.decrementAndGet();
  }

  /** Connections open now, for tests and metrics. */
  int connections() {
    return total.get();
  }
}
