package dev.spool.broker.log;

/**
 * Broker-level settings of the log cleaner (the {@code log.cleaner.*} keys of {@code BrokerConfig},
 * which own the defaults). Immutable; any thread.
 *
 * @param enabled whether compacted topics are cleaned at all
 * @param threads cleaner threads; each cleans one partition at a time
 * @param dedupeBufferBytes memory for the key → offset maps, shared by the threads; a clean whose
 *     dirty keys do not fit cleans a smaller range
 * @param ioBufferBytes read and write buffer of each thread (grown for a larger batch)
 * @param ioMaxBytesPerSecond bytes read plus written per second over all threads; {@code <= 0} is
 *     unlimited
 * @param backoffMs pause of a thread that found nothing to clean
 */
public record CleanerConfig(
    boolean enabled,
    int threads,
    long dedupeBufferBytes,
    int ioBufferBytes,
    double ioMaxBytesPerSecond,
    long backoffMs) {

  /** Bytes of one entry of the key → offset map: a 16-byte key hash and an 8-byte offset. */
  public static final int OFFSET_MAP_ENTRY_BYTES = 24;

  public CleanerConfig {
    if (threads < 1 || threads > 64) {
      throw new IllegalArgumentException("threads must be in [1, 64]: " + threads);
    }
    if (dedupeBufferBytes / threads < 64L * OFFSET_MAP_ENTRY_BYTES) {
      throw new IllegalArgumentException(
          "dedupeBufferBytes " + dedupeBufferBytes + " leaves too little per thread");
    }
    if (dedupeBufferBytes / threads > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "dedupeBufferBytes " + dedupeBufferBytes + " is over 2 GiB per thread");
    }
    if (ioBufferBytes < 1024 || backoffMs < 1) {
      throw new IllegalArgumentException(
          "ioBufferBytes must be >= 1024 and backoffMs >= 1: " + ioBufferBytes + ", " + backoffMs);
    }
  }

  /** Bytes of the key → offset map of each thread. */
  public int dedupeBufferBytesPerThread() {
    return (int) (dedupeBufferBytes / threads);
  }
}
