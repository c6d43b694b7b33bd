package dev.spool.record;

/**
 * A batch names a codec id Kafka does not define (5–7 in the attributes' low three bits): its
 * records cannot be read, and it is refused rather than read as garbage. Every defined codec (none,
 * gzip, snappy, lz4, zstd) is supported.
 */
public class UnsupportedCompressionException extends RuntimeException {
  private final int codecId;

  public UnsupportedCompressionException(int codecId, long position) {
    super(
        "unknown compression codec id "
            + codecId
            + " (Kafka's are 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)"
            + (position >= 0 ? " at position " + position : ""));
    this.codecId = codecId;
  }

  /** The same, its message prefixed with {@code where} (e.g. the partition and batch index). */
  public UnsupportedCompressionException(String where, int codecId) {
    super(where + new UnsupportedCompressionException(codecId, -1).getMessage());
    this.codecId = codecId;
  }

  public int codecId() {
    return codecId;
  }
}
