package dev.spool.client;

import dev.spool.client.internal.CommonClientConfig;
import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigKey;
import java.util.List;
import java.util.Map;

/** Admin client configuration (Kafka's key names and defaults). Unknown keys are rejected. */
public final class AdminConfig {
  public static final ConfigDef DEF = new ConfigDef("admin");
  static final CommonClientConfig COMMON = CommonClientConfig.define(DEF, 30_000L);

  public static final ConfigKey<List<String>> BOOTSTRAP_SERVERS = COMMON.bootstrapServers();
  public static final ConfigKey<String> CLIENT_ID = COMMON.clientId();
  public static final ConfigKey<Long> REQUEST_TIMEOUT_MS = COMMON.requestTimeoutMs();
  public static final ConfigKey<Long> DEFAULT_API_TIMEOUT_MS =
      DEF.longKey(
          "default.api.timeout.ms",
          60_000L,
          ConfigKey.atLeast(1L),
          "How long one admin operation may take, retries included.");

  private final Config config;

  public AdminConfig(Map<String, String> props) {
    this.config = DEF.parse(props);
  }

  Config config() {
    return config;
  }

  public <T> T get(ConfigKey<T> key) {
    return config.get(key);
  }

  public static String help() {
    return DEF.help();
  }
}
