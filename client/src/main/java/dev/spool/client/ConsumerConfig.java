package dev.spool.client;

import dev.spool.client.internal.CommonClientConfig;
import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigException;
import dev.spool.config.ConfigKey;
import java.util.List;
import java.util.Map;

/**
 * Consumer configuration: Kafka's key names and defaults (the consumer reads what is already
 * replicated; nothing here trades safety). Unknown keys are rejected; {@link #help()} prints the
 * table.
 */
public final class ConsumerConfig {
  public static final ConfigDef DEF = new ConfigDef("consumer");
  static final CommonClientConfig COMMON = CommonClientConfig.define(DEF, 30_000L);

  public static final ConfigKey<List<String>> BOOTSTRAP_SERVERS = COMMON.bootstrapServers();
  public static final ConfigKey<String> CLIENT_ID = COMMON.clientId();
  public static final ConfigKey<Long> REQUEST_TIMEOUT_MS = COMMON.requestTimeoutMs();
  public static final ConfigKey<Long> RETRY_BACKOFF_MS = COMMON.retryBackoffMs();
  public static final ConfigKey<Long> RETRY_BACKOFF_MAX_MS = COMMON.retryBackoffMaxMs();
  public static final ConfigKey<Long> METADATA_MAX_AGE_MS = COMMON.metadataMaxAgeMs();

  public static final ConfigKey<Integer> FETCH_MIN_BYTES =
      DEF.intKey(
          "fetch.min.bytes",
          1,
          ConfigKey.atLeast(0),
          "A fetch waits (up to fetch.max.wait.ms) until this many bytes are available.");
  public static final ConfigKey<Integer> FETCH_MAX_WAIT_MS =
      DEF.intKey(
          "fetch.max.wait.ms",
          500,
          ConfigKey.atLeast(0),
          "Longest time the broker holds a fetch that has less than fetch.min.bytes.");
  public static final ConfigKey<Integer> FETCH_MAX_BYTES =
      DEF.intKey(
          "fetch.max.bytes",
          50 * 1024 * 1024,
          ConfigKey.atLeast(1024),
          "Most bytes one fetch response carries (at least one batch is always returned).");
  public static final ConfigKey<Integer> MAX_PARTITION_FETCH_BYTES =
      DEF.intKey(
          "max.partition.fetch.bytes",
          1024 * 1024,
          ConfigKey.atLeast(1024),
          "Most bytes one fetch returns per partition (at least one batch).");
  public static final ConfigKey<Integer> MAX_POLL_RECORDS =
      DEF.intKey("max.poll.records", 500, ConfigKey.atLeast(1), "Most records one poll returns.");
  public static final ConfigKey<String> AUTO_OFFSET_RESET =
      DEF.stringKey(
          "auto.offset.reset",
          "latest",
          ConfigKey.oneOf("earliest", "latest", "none"),
          "Where to start without a position or when it is out of range: earliest, latest, or none (fail).");
  public static final ConfigKey<Boolean> CHECK_CRCS =
      DEF.boolKey(
          "check.crcs", true, "Verify each fetched batch's CRC-32C before returning its records.");
  public static final ConfigKey<Long> DEFAULT_API_TIMEOUT_MS =
      DEF.longKey(
          "default.api.timeout.ms",
          60_000L,
          ConfigKey.atLeast(0L),
          "Timeout of blocking calls such as position, endOffsets and offsetsForTimes.");

  // ---- consumer groups
  public static final ConfigKey<String> GROUP_ID =
      DEF.stringKey(
          "group.id",
          "",
          null,
          "The consumer group: needed by subscribe and by commits; empty = no group (assign only).");
  public static final ConfigKey<String> GROUP_INSTANCE_ID =
      DEF.stringKey(
          "group.instance.id",
          "",
          null,
          "Static membership: a member restarted within the session timeout keeps its partitions.");
  public static final ConfigKey<String> GROUP_REMOTE_ASSIGNOR =
      DEF.stringKey(
          "group.remote.assignor",
          "",
          ConfigKey.oneOf("", "uniform", "range"),
          "The server-side assignor (uniform or range); empty = the broker's default.");
  public static final ConfigKey<Boolean> ENABLE_AUTO_COMMIT =
      DEF.boolKey(
          "enable.auto.commit",
          true,
          "With a group: commit consumed positions every auto.commit.interval.ms, before a"
              + " revocation and on close.");
  public static final ConfigKey<Integer> AUTO_COMMIT_INTERVAL_MS =
      DEF.intKey(
          "auto.commit.interval.ms",
          5_000,
          ConfigKey.atLeast(1),
          "How often consumed positions are committed when enable.auto.commit is on.");
  public static final ConfigKey<Integer> MAX_POLL_INTERVAL_MS =
      DEF.intKey(
          "max.poll.interval.ms",
          300_000,
          ConfigKey.atLeast(1),
          "A member that does not poll for this long leaves its group (its partitions move); it"
              + " rejoins at the next poll. Also the rebalance timeout the coordinator applies.");

  private final Config config;

  public ConsumerConfig(Map<String, String> props) {
    this.config = DEF.parse(props);
    if (config.get(REQUEST_TIMEOUT_MS) <= config.get(FETCH_MAX_WAIT_MS)) {
      throw new ConfigException(
          REQUEST_TIMEOUT_MS.name(),
          "must be larger than fetch.max.wait.ms="
              + config.get(FETCH_MAX_WAIT_MS)
              + " (a long-polling fetch would time out)");
    }
  }

  Config config() {
    return config;
  }

  public <T> T get(ConfigKey<T> key) {
    return config.get(key);
  }

  public String toLogString() {
    return config.toLogString();
  }

  public static String help() {
    return DEF.help();
  }
}
