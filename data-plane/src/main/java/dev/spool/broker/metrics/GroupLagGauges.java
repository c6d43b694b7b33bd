package dev.spool.broker.metrics;

import dev.spool.broker.replication.Partition;
import dev.spool.broker.replication.ReplicaManager;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.runtime.GroupCoordinator;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumer-group offsets and lag, reported by the group's coordinator (the broker leading the
 * group's {@code __consumer_offsets} partition), read at scrape time without a call to another
 * node: the committed offsets come from the coordinator's published views ({@link
 * GroupCoordinator#forEachCommittedOffset}), the end of each partition from this broker's own
 * replica of it.
 *
 * <p>Lag is the partition's high watermark minus the committed offset (never below 0): what the
 * group has left to read, since a consumer reads up to the high watermark. That is the number
 * Kafka's {@code kafka-consumer-groups --describe} shows as LAG (its LOG-END-OFFSET column is
 * ListOffsets' latest offset, which for a read-uncommitted consumer is the high watermark). On a
 * leader the high watermark is its own; on a follower it is the leader's as of the follower's last
 * fetch, at most one fetch behind. A partition this broker holds no replica of has a committed
 * offset series but no lag series: docs/operations.md#consumer-groups gives the query that joins it
 * with the leader's {@code spool_log_end_offset} instead.
 *
 * <p>Series stop after {@code maxSeries} per metric (the partition label cap), with one log line.
 * Each group partition's label set is built once and kept ({@link LabelCache}), as the
 * per-partition gauges do, so a scrape does not rebuild and re-validate it per sample.
 *
 * <p>Threads: the callbacks run on the scraping thread (the node's ops HTTP thread).
 */
public final class GroupLagGauges {
  private static final Logger log = LoggerFactory.getLogger(GroupLagGauges.class);

  private final int brokerId;
  private final GroupCoordinator coordinator;
  private final ReplicaManager replicas;
  private final int maxSeries;
  private final AtomicBoolean capLogged = new AtomicBoolean();
  private final LabelCache<GroupPartition> labels =
      new LabelCache<>(
          k ->
              Labels.of(
                  "group",
                  k.group(),
                  "topic",
                  k.tp().topic(),
                  "partition",
                  Integer.toString(k.tp().partition())));

  /** A group's committed partition: the key of its label set. */
  private record GroupPartition(String group, TopicPartition tp) {}

  private GroupLagGauges(
      int brokerId, GroupCoordinator coordinator, ReplicaManager replicas, int maxSeries) {
    this.brokerId = brokerId;
    this.coordinator = coordinator;
    this.replicas = replicas;
    this.maxSeries = maxSeries;
  }

  /** Registers the group gauges in {@code registry}. */
  public static void register(
      PrometheusRegistry registry,
      int brokerId,
      GroupCoordinator coordinator,
      ReplicaManager replicas,
      int maxSeries) {
    GroupLagGauges g = new GroupLagGauges(brokerId, coordinator, replicas, maxSeries);
    List<String> labelNames = List.of("group", "topic", "partition");
    LabelledGauge.register(
        registry,
        "spool_group_committed_offset",
        "Offset a consumer group committed for the partition (on the group's coordinator).",
        null,
        labelNames,
        g::committed);
    LabelledGauge.register(
        registry,
        "spool_group_lag_records",
        "Records a consumer group has left to read: the partition's high watermark minus the"
            + " group's committed offset (on the group's coordinator, for partitions it holds"
            + " a replica of).",
        null,
        labelNames,
        g::lag);
  }

  private void committed(LabelledGauge.Sink sink) {
    int[] n = {0};
    coordinator.forEachCommittedOffset(
        (group, tp, offset) -> {
          if (n[0]++ >= maxSeries) {
            logCap();
            return false;
          }
          sink.add(offset, labels.of(new GroupPartition(group, tp)));
          return true;
        });
    labels.trim(n[0]);
  }

  private void lag(LabelledGauge.Sink sink) {
    int[] n = {0};
    coordinator.forEachCommittedOffset(
        (group, tp, offset) -> {
          long hw = highWatermark(tp);
          if (hw < 0) {
            return true;
          }
          if (n[0]++ >= maxSeries) {
            logCap();
            return false;
          }
          sink.add(Math.max(0, hw - offset), labels.of(new GroupPartition(group, tp)));
          return true;
        });
  }

  /** This broker's replica's high watermark of {@code tp}, or -1 when it holds none. */
  private long highWatermark(TopicPartition tp) {
    Optional<Partition> p = replicas.partition(tp);
    return p.isPresent() ? p.get().log().highWatermark() : -1;
  }

  private void logCap() {
    if (capLogged.compareAndSet(false, true)) {
      log.warn(
          "[node={}] more than {} committed group offsets: group metrics list only the first {}"
              + " (metrics.partition.labels.max)",
          brokerId,
          maxSeries,
          maxSeries);
    }
  }
}
