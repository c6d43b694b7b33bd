package dev.spool.broker.log.bench;

import java.util.Random;

/**
 * The keyed data set of the cleaner benchmark (scripts/bench-compaction.sh), one generator for both
 * systems: {@link CleanerThroughputCheck} writes it into Spool's log and
 * scripts/bench-compaction-kafka.java, run with this class on its class path, produces it to Kafka.
 * Per record, draw a key number with {@code rnd.nextInt(keys)}, then {@link #value}. JDK only, so
 * the Kafka side needs nothing else of Spool. Stateless.
 */
public final class KeyedEvents {
  /** The seed both systems start from. */
  public static final long SEED = 42;

  private static final String[] EVENTS = {"view", "click", "cart", "buy", "login", "logout"};

  private KeyedEvents() {}

  /** The key of key number {@code k}. */
  public static String key(int k) {
    return String.format("user-%08d", k);
  }

  /** A JSON-like event of about 1 KiB for key number {@code key}. */
  public static String value(Random rnd, int key) {
    StringBuilder s = new StringBuilder(1024);
    s.append("{\"user\":\"user-").append(key).append("\",\"seq\":").append(rnd.nextInt(1 << 30));
    s.append(",\"event\":\"").append(EVENTS[rnd.nextInt(EVENTS.length)]).append("\",\"tags\":[");
    while (s.length() < 1000) {
      s.append("\"t").append(rnd.nextInt(100_000)).append("\",");
    }
    return s.append("\"end\"]}").toString();
  }
}
