package dev.spool.quorum.bench;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.lifecycle.BrokerLifecycle;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The ISR churn of a large cluster through the quorum (QuorumBench {@code --mode churn}). Brokers
 * (real {@link BrokerLifecycle}s, heartbeating and replaying every batch as brokers do) lead topics
 * totalling {@code --partitions} partitions, RF 3, placed round-robin. Round after round, one
 * broker "leaves" (its replica fetchers stop: every partition it follows drops it from the ISR) and
 * "comes back" (it catches up: every one of them adds it again). Each partition's leader sends its
 * change as a broker does (ReplicaManager's listener: one AlterPartition per partition on the
 * broker's quorum client), all at once, so the client's AlterPartitionBatcher merges them into as
 * few Raft entries as it can. A phase ends when every change is answered; the next starts from the
 * states the answers carry.
 *
 * <p>The broker stays registered and unfenced: this is the ISR traffic of a restart faster than the
 * session timeout, or of lagging followers; a fenced broker's partitions are repaired by the active
 * controller's own writes instead (ClusterDuties, up to controller.max.records.per.write per
 * entry).
 *
 * <p>Reports committed PartitionChangeRecords/s, Raft entries/s (the metadata offset's advance,
 * which counts every entry: the merged AlterPartitions and any controller write) and the latency of
 * each AlterPartition (submit to answer). An error is a request or partition answered with an error
 * code, or a call that failed.
 */
final class IsrChurnBench {
  private final List<BrokerLifecycle> brokers;
  private final List<QuorumClient> brokerClients;
  private final QuorumClient admin;
  private final int partitions;
  private final int topics;

  /** The partitions' states as the bench knows them (from the answers), global index. */
  private PartitionState[] states;

  private String prefix;

  IsrChurnBench(
      List<BrokerLifecycle> brokers,
      List<QuorumClient> brokerClients,
      QuorumClient admin,
      int partitions,
      int topics) {
    if (brokers.size() < 3) {
      throw new IllegalArgumentException("ISR churn needs at least 3 brokers (RF 3)");
    }
    if (partitions < topics || topics < 1) {
      throw new IllegalArgumentException("need 1 <= topics <= partitions");
    }
    this.brokers = brokers;
    this.brokerClients = brokerClients;
    this.admin = admin;
    this.partitions = partitions;
    this.topics = topics;
  }

  private int brokerId(int i) {
    return brokers.get(i).brokerId();
  }

  /** Creates the topics (a few per request) and waits until every broker sees them. */
  void createTopics() throws Exception {
    prefix = "churn-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    int n = brokers.size();
    int global = 0;
    int perRequest = 10;
    List<CreateTopicsRequest.Topic> pending = new ArrayList<>();
    for (int t = 0; t < topics; t++) {
      int count = partitions / topics + (t < partitions % topics ? 1 : 0);
      CreateTopicsRequest.Topic.Builder tb =
          CreateTopicsRequest.Topic.newBuilder()
              .setName(prefix + t)
              .setNumPartitions(-1)
              .setReplicationFactor(-1);
      for (int p = 0; p < count; p++, global++) {
        CreateTopicsRequest.Assignment.Builder a =
            CreateTopicsRequest.Assignment.newBuilder().setPartition(p);
        for (int r = 0; r < 3; r++) {
          a.addReplicas(brokerId((global + r) % n));
        }
        tb.addAssignments(a);
      }
      pending.add(tb.build());
      if (pending.size() == perRequest || t == topics - 1) {
        CreateTopicsResponse resp =
            admin
                .createTopics(CreateTopicsRequest.newBuilder().addAllTopics(pending).build())
                .get(120, TimeUnit.SECONDS);
        for (var tr : resp.getTopicsList()) {
          if (tr.getErrorCode() != ErrorCode.NONE) {
            throw new IllegalStateException("create " + tr.getName() + ": " + tr);
          }
        }
        pending.clear();
      }
    }
    QuorumBench.waitFor(
        () -> brokers.stream().allMatch(b -> churnPartitions(b).size() == partitions),
        120_000,
        "every broker sees the churn topics");
    states = churnPartitions(brokers.get(0)).toArray(new PartitionState[0]);
  }

  private List<PartitionState> churnPartitions(BrokerLifecycle b) {
    List<PartitionState> out = new ArrayList<>(partitions);
    for (int t = 0; t < topics; t++) {
      TopicImage ti = b.image().topic(prefix + t);
      if (ti != null) {
        out.addAll(ti.partitions());
      }
    }
    return out;
  }

  /** Counters of one run of phases. */
  private static final class Tally {
    final AtomicLong records = new AtomicLong();
    final AtomicLong requests = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final Histogram latency = new ConcurrentHistogram(120_000_000L, 3);
  }

  /**
   * One phase: every partition that {@code victim} follows drops it from (or, when {@code join},
   * adds it to) the ISR, each change sent by the partition's leader. Returns once all are answered.
   */
  private void phase(int victim, boolean join, Tally tally) throws Exception {
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (int i = 0; i < states.length; i++) {
      PartitionState s = states[i];
      if (s.leader() == victim || !s.replicas().contains(victim)) {
        continue;
      }
      if (join == s.isrContains(victim)) {
        continue; // already as wanted (an earlier error left it so)
      }
      List<Integer> isr =
          join
              ? s.replicas().stream().filter(r -> r == victim || s.isrContains(r)).toList()
              : s.isr().stream().filter(r -> r != victim).toList();
      int leaderIdx = indexOf(s.leader());
      BrokerLifecycle lb = brokers.get(leaderIdx);
      AlterPartitionRequest req =
          AlterPartitionRequest.newBuilder()
              .setBrokerId(s.leader())
              .setBrokerEpoch(lb.brokerEpoch())
              .addPartitions(
                  AlterPartitionRequest.Partition.newBuilder()
                      .setTopic(s.topic())
                      .setTopicId(s.topicId())
                      .setPartition(s.partition())
                      .setLeaderEpoch(s.leaderEpoch())
                      .setPartitionEpoch(s.partitionEpoch())
                      .addAllNewIsr(isr))
              .build();
      int slot = i;
      long start = System.nanoTime();
      calls.add(
          brokerClients
              .get(leaderIdx)
              .alterPartition(req)
              .handle(
                  (r, e) -> {
                    tally.latency.recordValue(
                        Math.min((System.nanoTime() - start) / 1000, 120_000_000L));
                    tally.requests.incrementAndGet();
                    if (e != null
                        || r.getErrorCode() != ErrorCode.NONE
                        || r.getPartitionsCount() != 1) {
                      tally.errors.incrementAndGet();
                      return null;
                    }
                    AlterPartitionResponse.PartitionResult pr = r.getPartitions(0);
                    states[slot] = updated(states[slot], pr);
                    if (pr.getErrorCode() != ErrorCode.NONE) {
                      tally.errors.incrementAndGet();
                    } else {
                      tally.records.incrementAndGet();
                    }
                    return null;
                  }));
    }
    CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(300, TimeUnit.SECONDS);
  }

  private static PartitionState updated(
      PartitionState s, AlterPartitionResponse.PartitionResult pr) {
    if (pr.getIsrList().isEmpty()) {
      return s;
    }
    return new PartitionState(
        s.topicId(),
        s.topic(),
        s.partition(),
        s.replicas(),
        pr.getIsrList(),
        pr.getLeader(),
        pr.getLeaderEpoch(),
        pr.getPartitionEpoch());
  }

  private int indexOf(int brokerId) {
    for (int i = 0; i < brokers.size(); i++) {
      if (brokerId(i) == brokerId) {
        return i;
      }
    }
    throw new IllegalStateException("broker " + brokerId + " is not one of the bench's");
  }

  /**
   * A round per broker in turn (leave, then come back); the first round warms up, then rounds run
   * until {@code seconds} have passed. Prints one line per phase and the RESULT line.
   */
  void run(int seconds) throws Exception {
    Tally warm = new Tally();
    phase(brokerId(0), false, warm);
    phase(brokerId(0), true, warm);
    System.out.printf(
        "churn warm-up round: %d records, %d errors%n", warm.records.get(), warm.errors.get());
    Tally tally = new Tally();
    long offset0 = brokers.get(0).image().offset();
    long t0 = System.nanoTime();
    long end = t0 + TimeUnit.SECONDS.toNanos(seconds);
    int round = 1;
    int phases = 0;
    while (System.nanoTime() < end) {
      int victim = brokerId(round % brokers.size());
      for (boolean join : new boolean[] {false, true}) {
        long p0 = System.nanoTime();
        long r0 = tally.records.get();
        phase(victim, join, tally);
        phases++;
        double ms = (System.nanoTime() - p0) / 1e6;
        System.out.printf(
            "churn phase %d: broker %d %s: %d records in %.0f ms%n",
            phases, victim, join ? "rejoins" : "leaves", tally.records.get() - r0, ms);
      }
      round++;
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    long entries = brokers.get(0).image().offset() - offset0;
    double rate = tally.records.get() / secs;
    double p50 = tally.latency.getValueAtPercentile(50) / 1000.0;
    double p99 = tally.latency.getValueAtPercentile(99) / 1000.0;
    System.out.printf(
        "churn: %d brokers, %d partitions in %d topics, %d phases in %.1f s: %.0f records/s,"
            + " %.1f Raft entries/s (%.0f records/entry), AlterPartition latency p50 %.1f ms"
            + " p99 %.1f ms max %.1f ms, %d requests, %d errors%n",
        brokers.size(),
        partitions,
        topics,
        phases,
        secs,
        rate,
        entries / secs,
        entries == 0 ? 0.0 : (double) tally.records.get() / entries,
        p50,
        p99,
        tally.latency.getMaxValue() / 1000.0,
        tally.requests.get(),
        tally.errors.get());
    System.out.printf(
        "RESULT records_per_sec=%.0f entries_per_sec=%.1f latency_p50_ms=%.1f latency_p99_ms=%.1f"
            + " partition_errors=%d%n",
        rate, entries / secs, p50, p99, tally.errors.get());
  }

  void deleteTopics() throws Exception {
    DeleteTopicsRequest.Builder d = DeleteTopicsRequest.newBuilder();
    for (int t = 0; t < topics; t++) {
      d.addNames(prefix + t);
    }
    admin.deleteTopics(d.build()).get(120, TimeUnit.SECONDS);
  }
}
