package dev.spool.record;

import dev.spool.config.CompressionConfig;

/**
 * The codec in bits 0–2 of a batch's attributes (Kafka ids; 5–7 are invalid), with the level range
 * each accepts ({@link CompressionConfig} has the numbers and why). Naming a type loads no codec
 * library: the native code is loaded only when a batch of that type is compressed or read.
 */
public enum CompressionType {
  NONE(0, "none", 0, 0, 0),
  GZIP(
      1,
      "gzip",
      CompressionConfig.GZIP_MIN_LEVEL,
      CompressionConfig.GZIP_MAX_LEVEL,
      CompressionConfig.GZIP_DEFAULT_LEVEL),
  SNAPPY(2, "snappy", 0, 0, 0),
  LZ4(
      3,
      "lz4",
      CompressionConfig.LZ4_MIN_LEVEL,
      CompressionConfig.LZ4_MAX_LEVEL,
      CompressionConfig.LZ4_DEFAULT_LEVEL),
  ZSTD(
      4,
      "zstd",
      CompressionConfig.ZSTD_MIN_LEVEL,
      CompressionConfig.ZSTD_MAX_LEVEL,
      CompressionConfig.ZSTD_DEFAULT_LEVEL);

  private static final CompressionType[] BY_ID = values();

  private final int id;
  private final String displayName;
  private final int minLevel;
  private final int maxLevel;
  private final int defaultLevel;

  CompressionType(int id, String displayName, int minLevel, int maxLevel, int defaultLevel) {
    this.id = id;
    this.displayName = displayName;
    this.minLevel = minLevel;
    this.maxLevel = maxLevel;
    this.defaultLevel = defaultLevel;
  }

  public int id() {
    return id;
  }

  /** Kafka's name: none, gzip, snappy, lz4, zstd. */
  public String displayName() {
    return displayName;
  }

  /** The level used when none is configured (0 for codecs without levels). */
  public int defaultLevel() {
    return defaultLevel;
  }

  /** Whether this codec accepts {@code level} (its default always counts). */
  public boolean isValidLevel(int level) {
    return level == defaultLevel || (level >= minLevel && level <= maxLevel);
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

  /** The codec named {@code name} (Kafka's names); throws for any other. */
  public static CompressionType forName(String name) {
    for (CompressionType t : BY_ID) {
      if (t.displayName.equals(name)) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "unknown compression type '" + name + "' (none, gzip, snappy, lz4, zstd)");
  }
}
