package dev.spool.client;

import dev.spool.client.internal.CommonClientConfig;
import dev.spool.config.CompressionConfig;
import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigException;
import dev.spool.config.ConfigKey;
import dev.spool.record.Compression;
import dev.spool.record.CompressionType;
import java.util.List;
import java.util.Map;

/**
 * Producer configuration: Kafka's key names, Spool's defaults. Unknown keys are rejected (with a
 * suggestion), values are validated, and relations between keys are checked here. {@link #help()}
 * prints the table.
 *
 * <p>Defaults that differ from Kafka's, and why: {@code batch.size} is 128 KiB (Kafka: 16 KiB).
 * Every topic is replicated (RF 3, {@code acks=all}), so each produce request waits for a follower
 * fetch round trip before it is acknowledged; per partition at most five requests are in flight, so
 * throughput is bounded by about {@code 5 × batch.size ÷ replication round trip}. With 16 KiB that
 * bound is a few tens of MB/s on a busy machine; 128 KiB lifts it 3–4× (measured on Kafka 4.1 with
 * the same settings) at no cost in latency under light load, because {@code linger.ms} (5 ms, Kafka
 * 4's default) still sends a batch that does not fill up.
 *
 * <p>{@code queue.target.ms} (20 ms) is Spool's own: it bounds each partition's unsent batches to
 * the larger of two batches and what its leader took in that time, so a producer whose brokers are
 * the bottleneck blocks in send instead of queueing all of {@code buffer.memory} (which made every
 * record wait buffer ÷ throughput). 0 turns the bound off.
 */
public final class ProducerConfig {
  public static final ConfigDef DEF = new ConfigDef("producer");
  static final CommonClientConfig COMMON = CommonClientConfig.define(DEF, 30_000L);

  public static final ConfigKey<List<String>> BOOTSTRAP_SERVERS = COMMON.bootstrapServers();
  public static final ConfigKey<String> CLIENT_ID = COMMON.clientId();
  public static final ConfigKey<Long> REQUEST_TIMEOUT_MS = COMMON.requestTimeoutMs();
  public static final ConfigKey<Long> RETRY_BACKOFF_MS = COMMON.retryBackoffMs();
  public static final ConfigKey<Long> RETRY_BACKOFF_MAX_MS = COMMON.retryBackoffMaxMs();
  public static final ConfigKey<Long> RECONNECT_BACKOFF_MS = COMMON.reconnectBackoffMs();
  public static final ConfigKey<Long> RECONNECT_BACKOFF_MAX_MS = COMMON.reconnectBackoffMaxMs();
  public static final ConfigKey<Long> SOCKET_CONNECTION_SETUP_TIMEOUT_MS =
      COMMON.connectionSetupTimeoutMs();
  public static final ConfigKey<Long> METADATA_MAX_AGE_MS = COMMON.metadataMaxAgeMs();

  public static final ConfigKey<String> ACKS =
      DEF.stringKey(
          "acks",
          "all",
          ConfigKey.oneOf("all", "-1", "1", "0"),
          "Acknowledgement wanted: all (= -1) waits for every in-sync replica, 1 for the leader, 0 for none.");
  public static final ConfigKey<Boolean> ENABLE_IDEMPOTENCE =
      DEF.boolKey(
          "enable.idempotence",
          true,
          "Number batches per partition so retries never duplicate or reorder records (needs acks=all).");
  public static final ConfigKey<Integer> BATCH_SIZE =
      DEF.intKey(
          "batch.size",
          128 * 1024,
          ConfigKey.atLeast(1024),
          "Target bytes per partition batch; 128 KiB so acks=all on replicated topics is not round-trip bound.");
  public static final ConfigKey<Long> LINGER_MS =
      DEF.longKey(
          "linger.ms",
          5L,
          ConfigKey.atLeast(0L),
          "How long a batch that is not full waits for more records before it is sent.");
  public static final ConfigKey<Long> BUFFER_MEMORY =
      DEF.longKey(
          "buffer.memory",
          32L * 1024 * 1024,
          ConfigKey.atLeast(64L * 1024),
          "Bytes of records the producer may hold before send blocks (up to max.block.ms).");
  public static final ConfigKey<Long> QUEUE_TARGET_MS =
      DEF.longKey(
          "queue.target.ms",
          20L,
          ConfigKey.atLeast(0L),
          "Spool only. Bounds each partition's unsent batches to what its leader took in this time"
              + " (at least two batches); send blocks beyond it, within max.block.ms."
              + " 0 = only buffer.memory bounds them.");
  public static final ConfigKey<Long> MAX_BLOCK_MS =
      DEF.longKey(
          "max.block.ms",
          60_000L,
          ConfigKey.atLeast(0L),
          "How long send may block waiting for metadata, buffer memory or queue room before it fails.");
  public static final ConfigKey<Integer> MAX_REQUEST_SIZE =
      DEF.intKey(
          "max.request.size",
          1024 * 1024,
          ConfigKey.atLeast(1024),
          "Largest produce request in bytes; also caps a single record.");
  public static final ConfigKey<Long> DELIVERY_TIMEOUT_MS =
      DEF.longKey(
          "delivery.timeout.ms",
          120_000L,
          ConfigKey.atLeast(1L),
          "Upper bound from send to acknowledgement, retries included; must be >= linger.ms + request.timeout.ms.");
  public static final ConfigKey<Integer> RETRIES =
      DEF.intKey(
          "retries",
          Integer.MAX_VALUE,
          ConfigKey.atLeast(0),
          "How often a batch is resent after a retriable error (delivery.timeout.ms bounds it too).");
  public static final ConfigKey<Integer> MAX_IN_FLIGHT =
      DEF.intKey(
          "max.in.flight.requests.per.connection",
          5,
          ConfigKey.atLeast(1),
          "Produce requests sent to one broker and not yet answered; at most 5 with idempotence.");
  public static final ConfigKey<String> COMPRESSION_TYPE =
      DEF.stringKey(
          "compression.type",
          "none",
          ConfigKey.oneOf(CompressionConfig.CODEC_NAMES),
          "Codec each batch is compressed with: none, gzip, snappy, lz4 or zstd (Kafka's formats).");
  static final CompressionConfig LEVELS =
      CompressionConfig.define(DEF, "for batches this producer compresses.");
  public static final ConfigKey<Integer> COMPRESSION_GZIP_LEVEL = LEVELS.gzipLevel();
  public static final ConfigKey<Integer> COMPRESSION_LZ4_LEVEL = LEVELS.lz4Level();
  public static final ConfigKey<Integer> COMPRESSION_ZSTD_LEVEL = LEVELS.zstdLevel();

  private final Config config;
  private final boolean idempotent;
  private final short acks;

  public ProducerConfig(Map<String, String> props) {
    this.config = DEF.parse(props);
    String a = config.get(ACKS);
    this.acks = (short) (a.equals("all") ? -1 : Integer.parseInt(a));
    boolean explicitIdempotence = config.explicitValues().containsKey(ENABLE_IDEMPOTENCE.name());
    if (config.get(ENABLE_IDEMPOTENCE) && acks != -1) {
      if (explicitIdempotence) {
        throw new ConfigException(
            null, "enable.idempotence=true needs acks=all (got acks=" + a + ")");
      }
      // As Kafka: an explicit weaker acks turns the default idempotence off.
      idempotent = false;
    } else {
      idempotent = config.get(ENABLE_IDEMPOTENCE);
    }
    if (idempotent && config.get(MAX_IN_FLIGHT) > 5) {
      throw new ConfigException(
          MAX_IN_FLIGHT.name(),
          "must be at most 5 with enable.idempotence=true (the broker deduplicates the last 5 batches)");
    }
    if (idempotent && config.get(RETRIES) == 0) {
      throw new ConfigException(RETRIES.name(), "must be > 0 with enable.idempotence=true");
    }
    long minDelivery = config.get(LINGER_MS) + config.get(REQUEST_TIMEOUT_MS);
    if (config.get(DELIVERY_TIMEOUT_MS) < minDelivery) {
      throw new ConfigException(
          DELIVERY_TIMEOUT_MS.name(),
          "must be at least linger.ms + request.timeout.ms = " + minDelivery);
    }
    if (config.get(BUFFER_MEMORY) < config.get(BATCH_SIZE)) {
      throw new ConfigException(BUFFER_MEMORY.name(), "must be at least batch.size");
    }
  }

  Config config() {
    return config;
  }

  public <T> T get(ConfigKey<T> key) {
    return config.get(key);
  }

  /** Whether idempotence is in effect (the default, unless acks was set weaker). */
  public boolean idempotent() {
    return idempotent;
  }

  /** The codec and level batches are compressed with ({@code compression.type} and its level). */
  public Compression compression() {
    String name = config.get(COMPRESSION_TYPE);
    return Compression.of(CompressionType.forName(name), LEVELS.levelFor(name, config));
  }

  /** acks as sent on the wire: -1 (all), 1 or 0. */
  public short acks() {
    return acks;
  }

  public String toLogString() {
    return config.toLogString();
  }

  /** The key table for {@code --help}. */
  public static String help() {
    return DEF.help();
  }
}
