package dev.spool.node.ops;

import dev.spool.quorum.QuorumServer;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.function.Consumer;

/**
 * The controller role's gauges, read at scrape time from the quorum member: Raft state through
 * Ratis' division info, cluster counts from the controller's immutable metadata image. The cluster
 * counts (fenced brokers, offline partitions) are reported by the active controller only and are 0
 * elsewhere, as Kafka does, so a sum over the cluster counts each once.
 *
 * <p>Threads: the callbacks run on the scraping thread.
 */
final class ControllerGauges {
  private ControllerGauges() {}

  static void register(PrometheusRegistry r, QuorumServer q) {
    gauge(
        r,
        "spool_controller_active",
        "1 on the active controller (the ready Raft leader), else 0.",
        cb -> cb.call(q.isActiveController() ? 1 : 0));
    gauge(
        r,
        "spool_controller_raft_term",
        "The Raft term as this voter knows it.",
        cb -> cb.call(q.term()));
    gauge(
        r,
        "spool_controller_metadata_commit_index",
        "The metadata log's commit index as this voter knows it.",
        cb -> cb.call(q.commitIndex()));
    gauge(
        r,
        "spool_controller_metadata_applied_index",
        "The last metadata log index applied to this voter's image.",
        cb -> cb.call(q.appliedIndex()));
    CounterWithCallback.builder()
        .name("spool_controller_leader_changes_total")
        .help("Raft leader changes this voter has seen since it started.")
        .callback(cb -> cb.call(q.leaderChanges()))
        .register(r);
    GaugeWithCallback.builder()
        .name("spool_controller_leader_change_age_seconds")
        .help("Seconds since this voter last saw the Raft leader change (or since it started).")
        .unit(Unit.SECONDS)
        .callback(cb -> cb.call(q.msSinceLeaderChange() / 1000.0))
        .register(r);
    GaugeWithCallback.builder()
        .name("spool_controller_broker_heartbeat_age_seconds")
        .help(
            "Seconds since each registered broker's last heartbeat reached the active controller"
                + " (active controller only; a broker not heard from since the controller became"
                + " active counts from then). Brokers are fenced past the session timeout.")
        .unit(Unit.SECONDS)
        .labelNames("broker")
        .callback(
            cb ->
                q.brokerHeartbeatAgesMs().forEach((id, ms) -> cb.call(ms / 1000.0, id.toString())))
        .register(r);
    gauge(
        r,
        "spool_controller_fenced_brokers",
        "Registered brokers that are fenced (active controller only).",
        cb -> cb.call(q.isActiveController() ? fencedBrokers(q.image()) : 0));
    gauge(
        r,
        "spool_controller_registered_brokers",
        "Registered brokers, fenced or not (active controller only).",
        cb -> cb.call(q.isActiveController() ? q.image().brokers().size() : 0));
    gauge(
        r,
        "spool_controller_offline_partitions",
        "Partitions without a leader (active controller only).",
        cb -> cb.call(q.isActiveController() ? offlinePartitions(q.image()) : 0));
  }

  private static int fencedBrokers(MetadataImage image) {
    int n = 0;
    for (BrokerRegistration b : image.brokers().values()) {
      if (b.fenced()) {
        n++;
      }
    }
    return n;
  }

  private static int offlinePartitions(MetadataImage image) {
    int n = 0;
    for (TopicImage t : image.topics()) {
      for (PartitionState st : t.partitions()) {
        if (!st.hasLeader()) {
          n++;
        }
      }
    }
    return n;
  }

  private static void gauge(
      PrometheusRegistry r, String name, String help, Consumer<GaugeWithCallback.Callback> cb) {
    GaugeWithCallback.builder().name(name).help(help).callback(cb).register(r);
  }
}
