package dev.spool.config;

/**
 * The per-codec compression level keys (Kafka's KIP-390 names, ranges and defaults), shared by the
 * producer config and the topic config: each defines its own instance on its own {@link ConfigDef}
 * (keys belong to one definition). The ranges are the codecs' own: gzip is the JDK Deflater's 1–9
 * or -1 for its default (6); lz4 is lz4-java's high-compression 1–17, where the default 9 means
 * lz4's fast compressor (what every lz4 producer writes without a level); zstd is the reference
 * library's -131072–22 with its default 3.
 */
public record CompressionConfig(
    ConfigKey<Integer> gzipLevel, ConfigKey<Integer> lz4Level, ConfigKey<Integer> zstdLevel) {

  public static final int GZIP_MIN_LEVEL = 1;
  public static final int GZIP_MAX_LEVEL = 9;
  public static final int GZIP_DEFAULT_LEVEL = -1;
  public static final int LZ4_MIN_LEVEL = 1;
  public static final int LZ4_MAX_LEVEL = 17;
  public static final int LZ4_DEFAULT_LEVEL = 9;
  public static final int ZSTD_MIN_LEVEL = -131072;
  public static final int ZSTD_MAX_LEVEL = 22;
  public static final int ZSTD_DEFAULT_LEVEL = 3;

  /** The codec names a producer may ask for, in Kafka's codec id order. */
  public static final String[] CODEC_NAMES = {"none", "gzip", "snappy", "lz4", "zstd"};

  /** Defines the three level keys on {@code def}; {@code scope} ends each doc line. */
  public static CompressionConfig define(ConfigDef def, String scope) {
    return new CompressionConfig(
        def.intKey(
            "compression.gzip.level",
            GZIP_DEFAULT_LEVEL,
            v ->
                v == GZIP_DEFAULT_LEVEL || (v >= GZIP_MIN_LEVEL && v <= GZIP_MAX_LEVEL)
                    ? null
                    : "must be between 1 and 9, or -1 for the default",
            "gzip level (1-9, -1 = Deflater's default 6) " + scope),
        def.intKey(
            "compression.lz4.level",
            LZ4_DEFAULT_LEVEL,
            ConfigKey.between(LZ4_MIN_LEVEL, LZ4_MAX_LEVEL),
            "lz4 level (1-17; 9 = lz4's fast compressor, others its high-compression mode) "
                + scope),
        def.intKey(
            "compression.zstd.level",
            ZSTD_DEFAULT_LEVEL,
            ConfigKey.between(ZSTD_MIN_LEVEL, ZSTD_MAX_LEVEL),
            "zstd level (-131072 to 22, negative = faster) " + scope));
  }

  /** The level {@code config} sets for codec {@code name}; 0 for codecs without levels. */
  public int levelFor(String name, Config config) {
    return switch (name) {
      case "gzip" -> config.get(gzipLevel);
      case "lz4" -> config.get(lz4Level);
      case "zstd" -> config.get(zstdLevel);
      default -> 0;
    };
  }
}
