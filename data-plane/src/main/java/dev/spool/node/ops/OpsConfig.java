package dev.spool.node.ops;

import dev.spool.common.HostPort;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigKey;

/**
 * The keys of a node's operations endpoint (metrics and health), for every role: controller-only
 * nodes serve it too.
 */
public final class OpsConfig {
  private OpsConfig() {}

  public static final ConfigDef DEF = new ConfigDef("node");

  public static final ConfigKey<String> METRICS_LISTENER =
      DEF.stringKey(
          "metrics.listener",
          "",
          v -> v.isEmpty() ? null : HostPort.problem(v),
          "host:port of the node's HTTP endpoint: Prometheus metrics on /metrics, health on"
              + " /health/live and /health/ready; off unless set.");

  public static final ConfigKey<Integer> METRICS_PARTITION_LABELS_MAX =
      DEF.intKey(
          "metrics.partition.labels.max",
          10_000,
          ConfigKey.between(1, 1_000_000),
          "At most this many partitions (and topics, and a group's partitions) get their own"
              + " series per metric; beyond it a scrape lists no more partitions, topics count"
              + " under topic=\"_other\", and the node logs it once.");
}
