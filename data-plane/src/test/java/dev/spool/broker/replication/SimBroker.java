package dev.spool.broker.replication;

import dev.spool.broker.log.FileSlice;
import dev.spool.broker.log.LogStartupState;
import dev.spool.broker.log.PartitionLog;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.config.TopicConfig;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.record.RecordBatch;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One simulated broker of a {@link ReplicationSimulation}: its real logs and {@link Partition}s,
 * its metadata image (brought by heartbeats, as the real broker's lifecycle does), its follower
 * fetch loop over the {@link SimNetwork} (whose unanswered waits per leader its heartbeats report,
 * as the real fetchers' do through {@link UnreachableLeaders}), and its AlterPartition calls to the
 * {@link SimQuorum}. A crash closes the logs (the page cache survives: nothing written is lost) and
 * forgets everything else; a restart reopens them with full recovery and registers again.
 *
 * <p>Threads: the simulation's single thread; it is also every partition's owner thread.
 */
final class SimBroker implements PartitionListener {
  private final ReplicationSimulation sim;
  final int id;
  boolean alive;
  boolean quorumReachable = true;
  int incarnation;
  long brokerEpoch = -1;
  MetadataImage image = MetadataImage.EMPTY;
  final Map<TopicPartition, PartitionLog> logs = new HashMap<>();
  final Map<TopicPartition, Partition> partitions = new HashMap<>();
  final Map<TopicPartition, LogShadow> shadows = new HashMap<>();
  final Map<TopicPartition, Long> fetchInFlight = new HashMap<>();
  final Map<TopicPartition, Long> fetchBackoffUntil = new HashMap<>();
  final Map<TopicPartition, Long> checkpointedHw = new HashMap<>();
  // Per leader: since when a fetch to it has gone unanswered (-1: answered).
  final Map<Integer, Long> waitingSince = new HashMap<>();
  UnreachableLeaders unreachable;
  long fetchSeq;
  final ReplicationSettings settings;

  SimBroker(ReplicationSimulation sim, int id) {
    this.sim = sim;
    this.id = id;
    this.settings =
        new ReplicationSettings(
            id, ReplicationSimulation.LAG_MS, 1000, 50, ReplicationSimulation.SILENT_MS);
  }

  Path dir() {
    return sim.root.resolve("broker-" + id);
  }

  void start() {
    alive = true;
    incarnation++;
    image = MetadataImage.EMPTY;
    waitingSince.clear();
    unreachable = new UnreachableLeaders(ReplicationSimulation.SILENT_MS);
    for (TopicPartition tp : sim.tps) {
      Path d = dir().resolve(tp.toString());
      if (Files.isDirectory(d)
          || sim.quorum.image.partition(tp) == null
          || sim.quorum.image.partition(tp).isReplica(id)) {
        long hw = checkpointedHw.getOrDefault(tp, 0L);
        PartitionLog l =
            PartitionLog.open(
                d,
                tp,
                ReplicationSimulation.TOPIC_ID,
                ReplicaTestSupport.smallConfig(),
                new LogStartupState(0, 0, hw, false),
                sim.clock,
                sim.scheduler);
        logs.put(tp, l);
        shadows.put(tp, new LogShadow());
      }
    }
    brokerEpoch = sim.quorum.register(id);
  }

  void crash() {
    sim.count("crashes");
    alive = false;
    for (Map.Entry<TopicPartition, PartitionLog> e : logs.entrySet()) {
      // The high watermark checkpoint is periodic: sometimes the latest, sometimes older.
      long hw = e.getValue().highWatermark();
      checkpointedHw.put(e.getKey(), sim.rnd.nextBoolean() ? hw : sim.rnd.nextInt((int) hw + 1));
      e.getValue().close(); // the page cache survives a crash: close() only flushes it
    }
    logs.clear();
    partitions.clear();
    shadows.clear();
    fetchInFlight.clear();
    fetchBackoffUntil.clear();
  }

  void restart() {
    if (!alive) {
      sim.count("restarts");
      start();
    }
  }

  // ---- metadata

  void heartbeat() {
    if (!alive || !quorumReachable) {
      return;
    }
    BrokerRegistration reg = sim.quorum.image.broker(id);
    if (reg == null || reg.epoch() != brokerEpoch) {
      return;
    }
    MetadataImage before = image;
    if (before.offset() < sim.quorum.log.size()) {
      ImageBuilder b = new ImageBuilder(before);
      for (long o = Math.max(1, before.offset() + 1); o <= sim.quorum.log.size(); o++) {
        MetadataApplier.apply(b, sim.quorum.log.get((int) o - 1), o);
      }
      MetadataImage after = b.build(sim.quorum.log.size());
      MetadataDelta delta = b.delta(after.offset(), false);
      image = after;
      applyDelta(after, delta);
    }
    long now = sim.clock.monotonicMs();
    Set<Integer> cannotReach = Set.copyOf(unreachable.check(waitingSince, now));
    if (!cannotReach.isEmpty()) {
      sim.count("heartbeats reporting unreachable leaders");
    }
    sim.quorum.tracker.heartbeat(
        id, brokerEpoch, image.offset(), false, false, List.of(), cannotReach, now);
  }

  /** As ReplicaManager.applyMetadata/becomeReplica, synchronously. */
  private void applyDelta(MetadataImage img, MetadataDelta delta) {
    for (PartitionState st : delta.changedPartitions().values()) {
      if (!st.isReplica(id)) {
        continue;
      }
      TopicPartition tp = st.topicPartition();
      Partition p = partitions.get(tp);
      if (p == null) {
        PartitionLog l = logs.get(tp);
        p = new Partition(tp, l, sim.clock, this, settings);
        partitions.put(tp, p);
      }
      int minIsr =
          TopicConfig.effectiveMinInsyncReplicas(
              img.topic(ReplicationSimulation.TOPIC).config(), st.replicas().size());
      Partition.StateChange c = p.applyPartitionState(st, minIsr);
      if (c == Partition.StateChange.BECAME_LEADER) {
        sim.count("leader changes");
      }
    }
  }

  // ---- replication

  void tick() {
    for (Partition p : partitions.values()) {
      p.tick();
    }
  }

  void sendFetches() {
    long now = sim.clock.monotonicMs();
    Set<Integer> followed = new HashSet<>();
    for (Partition p : partitions.values()) {
      TopicPartition tp = p.topicPartition();
      p.followerFetchState().ifPresent(s -> followed.add(s.leaderId()));
      if (fetchInFlight.containsKey(tp) || fetchBackoffUntil.getOrDefault(tp, 0L) > now) {
        continue;
      }
      p.followerFetchState().ifPresent(s -> sendFetch(p, s));
    }
    waitingSince.keySet().retainAll(followed);
  }

  private void sendFetch(Partition p, FollowerFetchState s) {
    TopicPartition tp = p.topicPartition();
    long fetchId = ++fetchSeq;
    int inc = incarnation;
    long sentEpoch = brokerEpoch;
    fetchInFlight.put(tp, fetchId);
    if (waitingSince.getOrDefault(s.leaderId(), -1L) < 0) {
      waitingSince.put(s.leaderId(), sim.clock.monotonicMs());
    }
    FetchParams params =
        new FetchParams(
            id,
            s.fetchOffset(),
            s.leaderEpoch(),
            s.lastFetchedEpoch(),
            200 + sim.rnd.nextInt(4000),
            true);
    sim.network.schedule(
        ReplicationSimulation.FETCH_TIMEOUT_MS,
        () -> {
          if (incarnation == inc && Objects.equals(fetchInFlight.get(tp), fetchId)) {
            fetchInFlight.remove(tp);
          }
        });
    if (sim.network.dropped()) {
      return;
    }
    sim.network.schedule(
        sim.network.delay(),
        () -> {
          SimBroker leader = sim.broker(s.leaderId());
          if (!leader.alive || !sim.network.linkUp(id, leader.id)) {
            return;
          }
          FetchAnswer answer = leader.serveFetch(id, sentEpoch, tp, params);
          if (sim.network.dropped()) {
            return;
          }
          sim.network.schedule(
              sim.network.delay(),
              () -> {
                if (!alive
                    || incarnation != inc
                    || !sim.network.linkUp(leader.id, id)
                    || !Objects.equals(fetchInFlight.get(tp), fetchId)) {
                  return;
                }
                fetchInFlight.remove(tp);
                waitingSince.put(leader.id, -1L);
                onFetchAnswer(p, s, answer);
              });
        });
  }

  record FetchAnswer(ErrorCode topLevel, PartitionFetchResult result, ByteBuffer records) {}

  FetchAnswer serveFetch(
      int followerId, long followerEpoch, TopicPartition tp, FetchParams params) {
    BrokerRegistration reg = image.broker(followerId);
    if (reg == null || reg.epoch() != followerEpoch) {
      sim.count("fetch STALE_BROKER_EPOCH");
      return new FetchAnswer(ErrorCode.STALE_BROKER_EPOCH, null, null);
    }
    Partition p = partitions.get(tp);
    if (p == null) {
      return new FetchAnswer(
          ErrorCode.NONE,
          PartitionFetchResult.error(ErrorCode.NOT_LEADER_OR_FOLLOWER, "no replica", null),
          null);
    }
    PartitionFetchResult r = p.fetch(params);
    return new FetchAnswer(ErrorCode.NONE, r, ReplicaTestSupport.bytes(r.slice()));
  }

  private void onFetchAnswer(Partition p, FollowerFetchState s, FetchAnswer a) {
    TopicPartition tp = p.topicPartition();
    if (partitions.get(tp) != p) {
      return;
    }
    if (a.topLevel() != ErrorCode.NONE) {
      fetchBackoffUntil.put(tp, sim.clock.monotonicMs() + 50);
      return;
    }
    PartitionFetchResult r = a.result();
    Partition.FollowerOutcome o =
        p.processFetchResponse(
            s,
            r.error(),
            r.message(),
            r.highWatermark(),
            r.logStartOffset(),
            r.logEndOffset(),
            r.divergingEpoch(),
            a.records());
    sim.count("follower " + o);
    if (o == Partition.FollowerOutcome.TRUNCATED) {
      shadows.get(tp).stale = true;
    }
    if (o == Partition.FollowerOutcome.RETRY_LATER) {
      fetchBackoffUntil.put(tp, sim.clock.monotonicMs() + 50);
    }
    syncShadows();
  }

  @Override
  public void sendIsrChange(Partition partition, IsrChange change) {
    sim.count("AlterPartition sent");
    int inc = incarnation;
    boolean[] answered = new boolean[1];
    AlterPartitionRequest req = change.toRequest(id, brokerEpoch);
    Runnable deliverFailure =
        () -> {
          if (!answered[0]
              && alive
              && incarnation == inc
              && partitions.get(partition.topicPartition()) == partition) {
            answered[0] = true;
            partition.onIsrChangeResult(
                change, ErrorCode.QUORUM_UNAVAILABLE, "timed out", -1, List.of(), -1, -1);
          }
        };
    sim.network.schedule(ReplicationSimulation.QUORUM_TIMEOUT_MS, deliverFailure);
    if (!quorumReachable || sim.network.dropped()) {
      return;
    }
    sim.network.schedule(
        sim.network.delay(),
        () -> {
          if (!quorumReachable) {
            return;
          }
          AlterPartitionResponse resp = sim.quorum.alterPartition(req);
          sim.count(
              "AlterPartition "
                  + (resp.getErrorCode() != ErrorCode.NONE
                      ? resp.getErrorCode()
                      : resp.getPartitions(0).getErrorCode()));
          if (sim.network.dropped()) {
            return; // committed, but the answer is lost: the leader must stay safe
          }
          sim.network.schedule(
              sim.network.delay(),
              () -> {
                if (answered[0]
                    || !alive
                    || incarnation != inc
                    || !quorumReachable
                    || partitions.get(partition.topicPartition()) != partition) {
                  return;
                }
                answered[0] = true;
                change.deliverAnswer(partition, resp);
              });
        });
  }

  // ---- shadows of the logs (what the invariants compare)

  RecordBatch batchAt(TopicPartition tp, long offset) {
    PartitionLog l = logs.get(tp);
    FileSlice s = l.read(offset, 1, Long.MAX_VALUE, true).slice();
    ByteBuffer b = ReplicaTestSupport.bytes(s);
    return b.remaining() == 0 ? null : RecordBatch.at(b, 0);
  }

  void syncShadows() {
    if (!alive) {
      return;
    }
    for (Map.Entry<TopicPartition, PartitionLog> e : logs.entrySet()) {
      shadows.get(e.getKey()).sync(e.getValue());
    }
  }
}
