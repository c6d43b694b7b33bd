package dev.spool.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text form of a replication throttle ({@code spool reassign execute --throttle}): a plain
 * number of bytes/s, or a number with the suffix B/s, KB/s, MB/s or GB/s. The multipliers are
 * binary (1024-based, as Kafka's tools count bytes): {@code 50MB/s} is 50 × 1024 × 1024 bytes/s.
 * Pure; any thread.
 */
final class ReplicationThrottle {
  private static final Pattern FORM =
      Pattern.compile("(\\d{1,19})\\s*(?:([KMG]?B)/s)?", Pattern.CASE_INSENSITIVE);

  private ReplicationThrottle() {}

  /**
   * Bytes/s from {@code text}; IllegalArgumentException saying the accepted forms for anything else
   * (a negative or fractional number, an unknown unit, an overflow).
   */
  static long parseBytesPerSec(String text) {
    String t = text == null ? "" : text.trim();
    Matcher m = FORM.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--throttle must be a whole number of bytes/s, optionally with B/s, KB/s, MB/s or GB/s"
              + " (1024-based), e.g. 50MB/s; got '"
              + text
              + "'");
    }
    int shift =
        m.group(2) == null
            ? 0
            : switch (m.group(2).toUpperCase(Locale.ROOT)) {
              case "KB" -> 10;
              case "MB" -> 20;
              case "GB" -> 30;
              default -> 0;
            };
    long number;
    try {
      number = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      number = -1;
    }
    if (number < 0 || number > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("--throttle is too large: '" + text + "'");
    }
    return number << shift;
  }

  /** A rate for people: the largest binary unit that divides it, e.g. 50MB/s, 1536B/s. */
  static String format(long bytesPerSec) {
    String[] units = {"B/s", "KB/s", "MB/s", "GB/s"};
    int u = 0;
    long v = bytesPerSec;
    while (u < units.length - 1 && v != 0 && v % 1024 == 0) {
      v /= 1024;
      u++;
    }
    return v + units[u];
  }
}
