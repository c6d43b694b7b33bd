package dev.spool.broker.metrics;

import dev.spool.broker.log.PartitionLog;
import dev.spool.broker.replication.Partition;
import dev.spool.broker.replication.ReplicaFetcherManager;
import dev.spool.broker.replication.ReplicaManager;
import dev.spool.broker.replication.ReplicaRole;
import dev.spool.common.TopicPartition;
import dev.spool.config.TopicConfig;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.lifecycle.BrokerState;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's gauges, read at scrape time from state other threads publish: the immutable metadata
 * image, partitions' volatile fields ({@link Partition#role()}, {@link
 * Partition#waitingProduces()}), the logs' lock-free getters, the fetchers' volatile offsets. A
 * scrape therefore never queues work on a partition worker or an event loop, and costs the request
 * path nothing.
 *
 * <p>Per-partition series ({@code topic}, {@code partition} labels) stop after {@code
 * maxPartitionLabels} partitions per metric, with one log line the first time, so a broker with a
 * huge partition count serves a bounded page.
 *
 * <p>Threads: the callbacks run on the scraping thread (the node's ops HTTP thread).
 */
public final class BrokerGauges {
  private static final Logger log = LoggerFactory.getLogger(BrokerGauges.class);

  /** What the gauges read; all of it safe to read from any thread. */
  public record Sources(
      int brokerId,
      ReplicaManager replicas,
      ReplicaFetcherManager fetchers,
      Supplier<BrokerState> state,
      long recoveryNanos) {}

  private final Sources s;
  private final int maxPartitionLabels;
  private final AtomicBoolean capLogged = new AtomicBoolean();
  private final LabelCache<TopicPartition> labels = LabelCache.partitions();

  private BrokerGauges(Sources sources, int maxPartitionLabels) {
    this.s = sources;
    this.maxPartitionLabels = maxPartitionLabels;
  }

  /** Registers the broker's gauges in {@code registry}. */
  public static void register(
      PrometheusRegistry registry, Sources sources, int maxPartitionLabels) {
    new BrokerGauges(sources, maxPartitionLabels).registerAll(registry);
  }

  private void registerAll(PrometheusRegistry r) {
    gauge(
        r,
        "spool_broker_running",
        "1 while the broker is registered and unfenced (lifecycle state RUNNING), else 0.",
        cb -> cb.call(s.state().get() == BrokerState.RUNNING ? 1 : 0));
    gauge(
        r,
        "spool_broker_metadata_offset",
        "Offset of the metadata image this broker serves from.",
        cb -> cb.call(s.replicas().image().offset()));
    gauge(
        r,
        "spool_log_recovery_seconds",
        "Time the broker spent opening and recovering its logs at start.",
        Unit.SECONDS,
        cb -> cb.call(s.recoveryNanos() / 1e9));
    gauge(
        r,
        "spool_partitions",
        "Partition replicas hosted by this broker.",
        cb -> cb.call(s.replicas().partitions().size()));
    gauge(
        r,
        "spool_leader_partitions",
        "Partitions this broker leads.",
        cb -> cb.call(countRole(ReplicaRole.LEADER)));
    gauge(
        r,
        "spool_offline_replicas",
        "Replicas on this broker that are offline after a storage error.",
        cb -> cb.call(countRole(ReplicaRole.OFFLINE)));
    gauge(
        r,
        "spool_offline_log_dirs",
        "Data directories of this broker that failed on a storage error (Kafka's"
            + " OfflineLogDirectoryCount): its replicas there serve nothing until a restart.",
        cb -> cb.call(s.replicas().logManager().offlineDirs().size()));
    gauge(
        r,
        "spool_under_replicated_partitions",
        "Partitions this broker leads whose ISR is smaller than their replica set.",
        cb -> cb.call(ledPartitions(false)));
    gauge(
        r,
        "spool_under_min_isr_partitions",
        "Partitions this broker leads whose ISR is below min.insync.replicas (acks=all fails).",
        cb -> cb.call(ledPartitions(true)));
    gauge(
        r,
        "spool_produce_purgatory_size",
        "acks=all produces waiting for the high watermark, over every partition.",
        cb -> cb.call(waitingProduces()));
    gauge(
        r,
        "spool_fetch_purgatory_size",
        "Fetches waiting in long poll for data.",
        cb -> cb.call(s.replicas().fetchWaiters().waitingCount()));
    partitionGauges(r);
  }

  private void partitionGauges(PrometheusRegistry r) {
    List<String> tp = List.of("topic", "partition");
    LabelledGauge.register(
        r,
        "spool_log_size_bytes",
        "Bytes of the partition's log on this broker (every segment).",
        Unit.BYTES,
        tp,
        sink -> eachLog((p, l) -> sink.add(l.sizeInBytes(), labels.of(p))));
    LabelledGauge.register(
        r,
        "spool_log_segments",
        "Segments of the partition's log on this broker.",
        null,
        tp,
        sink -> eachLog((p, l) -> sink.add(l.numberOfSegments(), labels.of(p))));
    LabelledGauge.register(
        r,
        "spool_log_end_offset",
        "Next offset to be written to the partition's log on this broker.",
        null,
        tp,
        sink -> eachLog((p, l) -> sink.add(l.logEndOffset(), labels.of(p))));
    LabelledGauge.register(
        r,
        "spool_replica_fetcher_lag_records",
        "Offsets this follower's log end is behind the leader's, as of the leader's last"
            + " fetch answer.",
        null,
        tp,
        sink -> {
          int[] n = {0};
          s.fetchers()
              .forEachLag(
                  (p, lag) -> {
                    if (n[0]++ < maxPartitionLabels) {
                      sink.add(lag, labels.of(p));
                    } else {
                      logCap();
                    }
                  });
        });
    CounterWithCallback.builder()
        .name("spool_replication_throttled_bytes_total")
        .help(
            "Record bytes this follower fetched for its adding replicas of reassignments, counted"
                + " against the replication throttle, since start.")
        .callback(cb -> cb.call(s.fetchers().throttledBytesTotal()))
        .register(r);
    CounterWithCallback.builder()
        .name("spool_leader_replication_throttled_bytes_total")
        .help(
            "Record bytes this leader sent to other brokers' adding replicas of reassignments,"
                + " counted against the replication throttle, since start.")
        .callback(cb -> cb.call(s.replicas().leaderThrottle().throttledBytesTotal()))
        .register(r);
  }

  private interface LogVisitor {
    void visit(TopicPartition tp, PartitionLog log);
  }

  private void eachLog(LogVisitor v) {
    labels.trim(s.replicas().partitions().size());
    int n = 0;
    for (Partition p : s.replicas().partitions()) {
      if (n++ >= maxPartitionLabels) {
        logCap();
        return;
      }
      v.visit(p.topicPartition(), p.log());
    }
  }

  private void logCap() {
    if (capLogged.compareAndSet(false, true)) {
      log.warn(
          "[node={}] more than {} partitions: per-partition metrics list only the first {}"
              + " (metrics.partition.labels.max)",
          s.brokerId(),
          maxPartitionLabels,
          maxPartitionLabels);
    }
  }

  private int countRole(ReplicaRole role) {
    int n = 0;
    for (Partition p : s.replicas().partitions()) {
      if (p.role() == role) {
        n++;
      }
    }
    return n;
  }

  private long waitingProduces() {
    long n = 0;
    for (Partition p : s.replicas().partitions()) {
      n += p.waitingProduces();
    }
    return n;
  }

  /** Partitions this broker leads (by the image) with an ISR below the replicas or the min ISR. */
  private int ledPartitions(boolean belowMinIsr) {
    MetadataImage image = s.replicas().image();
    int n = 0;
    for (TopicImage t : image.topics()) {
      for (PartitionState st : t.partitions()) {
        if (st.leader() != s.brokerId()) {
          continue;
        }
        int isr = st.isr().size();
        int replicas = st.replicationFactor();
        boolean under =
            belowMinIsr
                ? isr < TopicConfig.effectiveMinInsyncReplicas(t.config(), replicas)
                : isr < replicas;
        if (under) {
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

  private static void gauge(
      PrometheusRegistry r,
      String name,
      String help,
      Unit unit,
      Consumer<GaugeWithCallback.Callback> cb) {
    GaugeWithCallback.builder().name(name).help(help).unit(unit).callback(cb).register(r);
  }
}
