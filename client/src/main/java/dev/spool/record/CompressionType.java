package dev.spool.record;

/** The codec in bits 0–2 of a batch's attributes (Kafka ids; 5–7 are invalid). */
public enum CompressionType {
  NONE(0, "none"),
  GZIP(1, "gzip"),
  SNAPPY(2, "snappy"),
  LZ4(3, "lz4"),
  ZSTD(4, "zstd");

  private static final CompressionType[] BY_ID = values();

  private final int id;
  private final String displayName;

  CompressionType(int id, String displayName) {
    this.id = id;
    this.displayName = displayName;
  }

  public int id() {
    return id;
  }

  public String displayName() {
    return displayName;
  }

  /** True when {@code id} names a known codec (0–4). */
  public static boolean isKnown(int id) {
    return id >= 0 && id < BY_ID.length;
  }

  /** The codec for {@code id}; throws {@link IllegalArgumentException} for an unknown id. */
  public static CompressionType forId(int id) {
    if (!isKnown(id)) {
      throw new IllegalArgumentException("unknown compression codec id " + id);
    }
    return BY_ID[id];
  }
}
