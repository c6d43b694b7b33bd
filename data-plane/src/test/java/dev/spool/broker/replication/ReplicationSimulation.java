package dev.spool.broker.replication;

import dev.spool.broker.log.FileSlice;
import dev.spool.broker.log.LogStartupState;
import dev.spool.broker.log.PartitionLog;
import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.config.TopicConfig;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.controller.BrokerHeartbeatTracker;
import dev.spool.quorum.controller.ClusterDuties;
import dev.spool.quorum.controller.ControllerSettings;
import dev.spool.quorum.controller.Decision;
import dev.spool.quorum.controller.PartitionDecisions;
import dev.spool.quorum.controller.ReplyFinisher;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A seeded, single-threaded simulation of one topic replicated over a few brokers (Kafka's
 * RaftEventSimulationTest, TigerBeetle's VOPR, applied to ISR replication).
 *
 * <p>What is real: every broker's {@link Partition} and {@link PartitionLog} (files in a temp
 * directory), and the quorum's own pure code: {@link MetadataApplier} replays records into images,
 * {@link PartitionDecisions#alterPartition} decides ISR changes (epoch checks, fencing), {@link
 * ClusterDuties#decide} fences brokers whose session expired, elects leaders from the ISR and moves
 * leadership back to preferred replicas, and {@link ReplyFinisher} completes answers. The Raft log
 * itself is one list (the quorum is modelled as always available to the brokers that can reach it;
 * Raft has its own tests).
 *
 * <p>What is simulated: time (a manual clock moved by each step), the network between brokers and
 * to the quorum (every message delayed, reordered by random delays, dropped with some probability,
 * and cut by directed link failures), brokers' heartbeats (which carry metadata to them), crashes
 * and restarts (logs are closed and reopened with full recovery; the page cache survives, so
 * nothing written is lost), quorum isolation (the broker is fenced after its session) and clients
 * producing with acks=all and acks=1 to whichever broker they believe leads.
 *
 * <p>After every step the named invariants are checked; a violation fails with the seed and step.
 */
final class ReplicationSimulation implements AutoCloseable {
  static final String TOPIC = "sim";
  static final String TOPIC_ID = "sim-topic-id";
  static final int RF = 3;

  // Timing (simulated ms).
  static final long SESSION_TIMEOUT_MS = 1_000;
  static final long LAG_MS = 600;
  static final long FETCH_TIMEOUT_MS = 300;
  static final long QUORUM_TIMEOUT_MS = 400;
  static final long PRODUCE_TIMEOUT_MS = 2_000;

  final long seed;
  final Random rnd;
  final ManualClock clock = new ManualClock(1_700_000_000_000L);
  final Path root;
  final ScheduledExecutorService scheduler = ReplicaTestSupport.scheduler();
  final SimQuorum quorum = new SimQuorum();
  final List<SimBroker> brokers = new ArrayList<>();
  final List<TopicPartition> tps = new ArrayList<>();
  final PriorityQueue<Event> events = new PriorityQueue<>();
  final Set<Long> cutLinks = new HashSet<>(); // from * 1000 + to
  final List<Acked> acked = new ArrayList<>();
  final Map<String, Integer> leaderOfEpoch = new HashMap<>();
  final Map<String, Long> leaderHighWatermark = new HashMap<>();
  final Map<String, Integer> stats = new TreeMap<>();
  final Map<TopicPartition, IdempotentProducer> idempotent = new HashMap<>();
  final Map<String, Long> idempotentAckOffsets = new HashMap<>();
  long eventSeq;
  int step;
  int valueSeq;

  /**
   * One idempotent producer per partition, one batch in flight: a failed or unanswered batch is
   * retried as the same bytes (same producer id and sequence) until acknowledged, so retries after
   * leader changes exercise duplicate detection on the new leader.
   */
  static final class IdempotentProducer {
    final long producerId;
    int nextSequence;
    ByteBuffer pristine; // the batch being sent, never modified (appends stamp offsets in place)
    int records;
    int attemptsOfThisBatch;
    long attempt;
    boolean inFlight;

    IdempotentProducer(long producerId) {
      this.producerId = producerId;
    }
  }

  record Event(long atMs, long seq, Runnable action) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int c = Long.compare(atMs, o.atMs);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  /** An acks=all write the cluster acknowledged. */
  record Acked(TopicPartition tp, long baseOffset, long lastOffset, long crc, int step) {}

  ReplicationSimulation(long seed, Path root, int brokerCount, int partitionCount) {
    this.seed = seed;
    this.rnd = new Random(seed);
    this.root = root;
    for (int i = 0; i < partitionCount; i++) {
      tps.add(new TopicPartition(TOPIC, i));
    }
    for (int id = 1; id <= brokerCount; id++) {
      brokers.add(new SimBroker(id));
    }
    for (SimBroker b : brokers) {
      b.start();
    }
    List<MetadataRecord> records = new ArrayList<>();
    for (SimBroker b : brokers) {
      records.add(Records.unfenceBroker(b.id, b.brokerEpoch));
    }
    records.add(Records.topic(TOPIC, TOPIC_ID));
    for (TopicPartition tp : tps) {
      List<Integer> replicas = new ArrayList<>();
      for (int r = 0; r < RF; r++) {
        replicas.add(brokers.get((tp.partition() + r) % brokerCount).id);
      }
      records.add(
          Records.partition(TOPIC_ID, tp.partition(), replicas, replicas, replicas.get(0), 0, 0));
    }
    quorum.write(records);
    for (SimBroker b : brokers) {
      b.heartbeat();
    }
  }

  // ================================================================ the run

  void run(int steps) {
    for (step = 0; step < steps; step++) {
      oneStep(true);
      checkInvariants();
    }
    heal();
    for (int i = 0; i < 400; i++, step++) {
      oneStep(false);
      checkInvariants();
    }
    checkConvergence();
  }

  private void oneStep(boolean faults) {
    clock.advanceMs(1 + rnd.nextInt(20));
    long now = clock.monotonicMs();
    while (!events.isEmpty() && events.peek().atMs() <= now) {
      events.poll().action().run();
    }
    for (SimBroker b : brokers) {
      if (b.alive) {
        b.tick();
        b.sendFetches();
        if (rnd.nextInt(10) < 3) {
          b.heartbeat();
        }
      }
    }
    quorum.duties(faults && rnd.nextInt(100) == 0);
    if (rnd.nextInt(10) < 4) {
      produce();
    }
    if (rnd.nextInt(10) < 3) {
      produceIdempotent();
    }
    if (faults) {
      injectFault();
    }
    for (SimBroker b : brokers) {
      b.syncShadows();
    }
  }

  private void schedule(long delayMs, Runnable action) {
    events.add(new Event(clock.monotonicMs() + delayMs, eventSeq++, action));
  }

  private long netDelay() {
    return rnd.nextInt(25);
  }

  private boolean dropped() {
    return rnd.nextInt(100) < 2;
  }

  private boolean linkUp(int from, int to) {
    return !cutLinks.contains(from * 1000L + to);
  }

  private void count(String what) {
    stats.merge(what, 1, Integer::sum);
  }

  SimBroker broker(int id) {
    return brokers.get(id - 1);
  }

  // ================================================================ faults

  private void injectFault() {
    int r = rnd.nextInt(1000);
    if (r < 4) {
      List<SimBroker> alive = brokers.stream().filter(b -> b.alive).toList();
      if (alive.size() > 1) {
        SimBroker victim = alive.get(rnd.nextInt(alive.size()));
        victim.crash();
        schedule(200 + rnd.nextInt(2500), victim::restart);
      }
    } else if (r < 9) {
      SimBroker b = brokers.get(rnd.nextInt(brokers.size()));
      boolean in = rnd.nextBoolean();
      boolean out = !in || rnd.nextBoolean();
      List<Long> cut = new ArrayList<>();
      for (SimBroker o : brokers) {
        if (o != b) {
          if (in) {
            cut.add(o.id * 1000L + b.id);
          }
          if (out) {
            cut.add(b.id * 1000L + o.id);
          }
        }
      }
      cutLinks.addAll(cut);
      count("link cuts");
      schedule(100 + rnd.nextInt(2500), () -> cut.forEach(cutLinks::remove));
    } else if (r < 12) {
      SimBroker b = brokers.get(rnd.nextInt(brokers.size()));
      if (b.quorumReachable) {
        b.quorumReachable = false;
        count("quorum isolations");
        schedule(300 + rnd.nextInt(3000), () -> b.quorumReachable = true);
      }
    }
  }

  private void heal() {
    cutLinks.clear();
    for (SimBroker b : brokers) {
      b.quorumReachable = true;
      if (!b.alive) {
        b.restart();
      }
    }
  }

  // ================================================================ clients

  private void produce() {
    TopicPartition tp = tps.get(rnd.nextInt(tps.size()));
    PartitionState st = quorum.image.partition(tp);
    SimBroker target =
        rnd.nextInt(5) > 0 && st.leader() > 0
            ? broker(st.leader())
            : brokers.get(rnd.nextInt(brokers.size()));
    if (!target.alive) {
      return;
    }
    Partition p = target.partitions.get(tp);
    if (p == null) {
      return;
    }
    int acks = rnd.nextInt(5) > 0 ? -1 : 1;
    PartitionState known = target.image.partition(tp);
    int epoch = rnd.nextBoolean() && known != null ? known.leaderEpoch() : -1;
    RecordBatchBuilder bb = new RecordBatchBuilder(128);
    int n = 1 + rnd.nextInt(3);
    for (int i = 0; i < n; i++) {
      bb.append(clock.nowMs(), null, ("r" + (valueSeq++)).getBytes());
    }
    count("produce attempts");
    int at = step;
    p.appendAsLeader(bb.build(), acks, epoch, PRODUCE_TIMEOUT_MS)
        .thenAccept(
            res -> {
              if (res.error() == ErrorCode.NONE && acks == -1) {
                RecordBatch batch = target.batchAt(tp, res.baseOffset());
                if (batch == null) {
                  throw new AssertionError(
                      violation(
                          "AckedBatchReadable",
                          "broker "
                              + target.id
                              + " acknowledged offset "
                              + res.baseOffset()
                              + " of "
                              + tp
                              + " but cannot read it"));
                }
                acked.add(
                    new Acked(tp, batch.baseOffset(), batch.lastOffset(), batch.checksum(), at));
                count("acked (acks=all)");
              } else {
                count("produce " + res.error());
              }
            });
  }

  private void produceIdempotent() {
    TopicPartition tp = tps.get(rnd.nextInt(tps.size()));
    IdempotentProducer ip =
        idempotent.computeIfAbsent(tp, t -> new IdempotentProducer(1000 + t.partition()));
    if (ip.inFlight) {
      return;
    }
    if (ip.pristine == null) {
      RecordBatchBuilder bb =
          new RecordBatchBuilder(128).producer(ip.producerId, (short) 0, ip.nextSequence);
      ip.records = 1 + rnd.nextInt(3);
      for (int i = 0; i < ip.records; i++) {
        bb.append(clock.nowMs(), null, ("i" + (valueSeq++)).getBytes());
      }
      ip.pristine = bb.build();
    }
    PartitionState st = quorum.image.partition(tp);
    SimBroker target =
        rnd.nextInt(5) > 0 && st.leader() > 0
            ? broker(st.leader())
            : brokers.get(rnd.nextInt(brokers.size()));
    Partition p = target.alive ? target.partitions.get(tp) : null;
    if (p == null) {
      return;
    }
    long attempt = ++ip.attempt;
    ip.attemptsOfThisBatch++;
    ip.inFlight = true;
    int sequence = ip.nextSequence;
    int at = step;
    ByteBuffer copy =
        ByteBuffer.allocate(ip.pristine.remaining()).put(ip.pristine.duplicate()).flip();
    count("idempotent attempts");
    // A crashed broker never answers: the producer gives up on this attempt and retries.
    schedule(
        PRODUCE_TIMEOUT_MS + 500,
        () -> {
          if (ip.attempt == attempt) {
            ip.inFlight = false;
          }
        });
    p.appendAsLeader(copy, -1, -1, PRODUCE_TIMEOUT_MS)
        .thenAccept(
            res -> {
              if (ip.attempt != attempt) {
                return;
              }
              ip.inFlight = false;
              count("idempotent " + res.error());
              if (res.error() != ErrorCode.NONE) {
                return; // retried later with the same bytes
              }
              String key = tp + "/" + ip.producerId + "/" + sequence;
              Long before = idempotentAckOffsets.putIfAbsent(key, res.baseOffset());
              check(
                  before == null || before == res.baseOffset(),
                  "IdempotentRetryKeepsItsOffset",
                  () ->
                      key
                          + " acknowledged at offset "
                          + before
                          + " and again at "
                          + res.baseOffset());
              RecordBatch batch = target.batchAt(tp, res.baseOffset());
              check(
                  batch != null
                      && batch.producerId() == ip.producerId
                      && batch.baseSequence() == sequence,
                  "AckedBatchReadable",
                  () ->
                      "broker "
                          + target.id
                          + " acknowledged "
                          + key
                          + " at offset "
                          + res.baseOffset()
                          + " but holds "
                          + batch);
              acked.add(
                  new Acked(tp, batch.baseOffset(), batch.lastOffset(), batch.checksum(), at));
              if (ip.attemptsOfThisBatch > 1) {
                count("idempotent acknowledged after retries");
              }
              ip.attemptsOfThisBatch = 0;
              ip.nextSequence += ip.records;
              ip.pristine = null;
            });
  }

  // ================================================================ quorum model

  /** The metadata quorum: one committed log of batches, an image, and the controller's duties. */
  final class SimQuorum {
    MetadataImage image = MetadataImage.EMPTY;
    final List<MetadataBatch> log = new ArrayList<>(); // index i holds offset i + 1
    final BrokerHeartbeatTracker tracker = new BrokerHeartbeatTracker(SESSION_TIMEOUT_MS);
    final ControllerSettings settings =
        QuorumConfig.defaultControllerSettings()
            .withSessionTimeoutMs(SESSION_TIMEOUT_MS)
            .withLeaderBalancing(true, 1);

    List<RecordResult> write(List<MetadataRecord> records) {
      MetadataBatch batch = MetadataBatch.newBuilder().addAllRecords(records).build();
      log.add(batch);
      long offset = log.size();
      ImageBuilder b = new ImageBuilder(image);
      List<RecordResult> results = MetadataApplier.apply(b, batch, offset);
      image = b.build(offset);
      return results;
    }

    long register(int id) {
      write(
          List.of(
              Records.registerBroker(
                  id, UUID.randomUUID().toString(), "host" + id, 9000 + id, "", 0)));
      return image.broker(id).epoch();
    }

    AlterPartitionResponse alterPartition(AlterPartitionRequest req) {
      Decision d = PartitionDecisions.alterPartition(req, image);
      List<RecordResult> results =
          d.batch().getRecordsCount() == 0 ? List.of() : write(d.batch().getRecordsList());
      return ReplyFinisher.finish(d.toEntry(), results, image, log.size()).getAlterPartition();
    }

    void duties(boolean balance) {
      long now = clock.monotonicMs();
      tracker.observe(image, now);
      ClusterDuties.Outcome o = ClusterDuties.decide(image, tracker, now, balance, settings);
      if (!o.isEmpty()) {
        count("controller writes");
        write(o.records());
      }
    }
  }

  // ================================================================ brokers

  /** One simulated broker: its logs, replicas, metadata image and fetch loop. */
  final class SimBroker implements PartitionListener {
    final int id;
    boolean alive;
    boolean quorumReachable = true;
    int incarnation;
    long brokerEpoch = -1;
    MetadataImage image = MetadataImage.EMPTY;
    final Map<TopicPartition, PartitionLog> logs = new HashMap<>();
    final Map<TopicPartition, Partition> partitions = new HashMap<>();
    final Map<TopicPartition, Shadow> shadows = new HashMap<>();
    final Map<TopicPartition, Long> fetchInFlight = new HashMap<>();
    final Map<TopicPartition, Long> fetchBackoffUntil = new HashMap<>();
    final Map<TopicPartition, Long> checkpointedHw = new HashMap<>();
    long fetchSeq;
    final ReplicationSettings settings;

    SimBroker(int id) {
      this.id = id;
      this.settings = new ReplicationSettings(id, LAG_MS, 1000, 50);
    }

    Path dir() {
      return root.resolve("broker-" + id);
    }

    void start() {
      alive = true;
      incarnation++;
      image = MetadataImage.EMPTY;
      for (TopicPartition tp : tps) {
        Path d = dir().resolve(tp.toString());
        if (Files.isDirectory(d)
            || quorum.image.partition(tp) == null
            || quorum.image.partition(tp).isReplica(id)) {
          long hw = checkpointedHw.getOrDefault(tp, 0L);
          PartitionLog l =
              PartitionLog.open(
                  d,
                  tp,
                  TOPIC_ID,
                  ReplicaTestSupport.smallConfig(),
                  new LogStartupState(0, 0, hw, false),
                  clock,
                  scheduler);
          logs.put(tp, l);
          shadows.put(tp, new Shadow());
        }
      }
      brokerEpoch = quorum.register(id);
    }

    void crash() {
      count("crashes");
      alive = false;
      for (Map.Entry<TopicPartition, PartitionLog> e : logs.entrySet()) {
        // The high watermark checkpoint is periodic: sometimes the latest, sometimes older.
        long hw = e.getValue().highWatermark();
        checkpointedHw.put(e.getKey(), rnd.nextBoolean() ? hw : rnd.nextInt((int) hw + 1));
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
        count("restarts");
        start();
      }
    }

    // ---- metadata

    void heartbeat() {
      if (!alive || !quorumReachable) {
        return;
      }
      BrokerRegistration reg = quorum.image.broker(id);
      if (reg == null || reg.epoch() != brokerEpoch) {
        return;
      }
      MetadataImage before = image;
      if (before.offset() < quorum.log.size()) {
        ImageBuilder b = new ImageBuilder(before);
        for (long o = Math.max(1, before.offset() + 1); o <= quorum.log.size(); o++) {
          MetadataApplier.apply(b, quorum.log.get((int) o - 1), o);
        }
        MetadataImage after = b.build(quorum.log.size());
        MetadataDelta delta = b.delta(after.offset(), false);
        image = after;
        applyDelta(after, delta);
      }
      quorum.tracker.heartbeat(id, brokerEpoch, image.offset(), false, false, clock.monotonicMs());
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
          p = new Partition(tp, l, clock, this, settings);
          partitions.put(tp, p);
        }
        int minIsr =
            TopicConfig.effectiveMinInsyncReplicas(img.topic(TOPIC).config(), st.replicas().size());
        Partition.StateChange c = p.applyPartitionState(st, minIsr);
        if (c == Partition.StateChange.BECAME_LEADER) {
          count("leader changes");
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
      long now = clock.monotonicMs();
      for (Partition p : partitions.values()) {
        TopicPartition tp = p.topicPartition();
        if (fetchInFlight.containsKey(tp) || fetchBackoffUntil.getOrDefault(tp, 0L) > now) {
          continue;
        }
        p.followerFetchState().ifPresent(s -> sendFetch(p, s));
      }
    }

    private void sendFetch(Partition p, FollowerFetchState s) {
      TopicPartition tp = p.topicPartition();
      long fetchId = ++fetchSeq;
      int inc = incarnation;
      long sentEpoch = brokerEpoch;
      fetchInFlight.put(tp, fetchId);
      FetchParams params =
          new FetchParams(
              id,
              s.fetchOffset(),
              s.leaderEpoch(),
              s.lastFetchedEpoch(),
              200 + rnd.nextInt(4000),
              true);
      schedule(
          FETCH_TIMEOUT_MS,
          () -> {
            if (incarnation == inc && Objects.equals(fetchInFlight.get(tp), fetchId)) {
              fetchInFlight.remove(tp);
            }
          });
      if (dropped()) {
        return;
      }
      schedule(
          netDelay(),
          () -> {
            SimBroker leader = broker(s.leaderId());
            if (!leader.alive || !linkUp(id, leader.id)) {
              return;
            }
            FetchAnswer answer = leader.serveFetch(id, sentEpoch, tp, params);
            if (dropped()) {
              return;
            }
            schedule(
                netDelay(),
                () -> {
                  if (!alive
                      || incarnation != inc
                      || !linkUp(leader.id, id)
                      || !Objects.equals(fetchInFlight.get(tp), fetchId)) {
                    return;
                  }
                  fetchInFlight.remove(tp);
                  onFetchAnswer(p, s, answer);
                });
          });
    }

    record FetchAnswer(ErrorCode topLevel, PartitionFetchResult result, ByteBuffer records) {}

    FetchAnswer serveFetch(
        int followerId, long followerEpoch, TopicPartition tp, FetchParams params) {
      BrokerRegistration reg = image.broker(followerId);
      if (reg == null || reg.epoch() != followerEpoch) {
        count("fetch STALE_BROKER_EPOCH");
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
        fetchBackoffUntil.put(tp, clock.monotonicMs() + 50);
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
      count("follower " + o);
      if (o == Partition.FollowerOutcome.TRUNCATED) {
        shadows.get(tp).stale = true;
      }
      if (o == Partition.FollowerOutcome.RETRY_LATER) {
        fetchBackoffUntil.put(tp, clock.monotonicMs() + 50);
      }
      syncShadows();
    }

    @Override
    public void sendIsrChange(Partition partition, IsrChange change) {
      count("AlterPartition sent");
      int inc = incarnation;
      boolean[] answered = new boolean[1];
      AlterPartitionRequest req =
          AlterPartitionRequest.newBuilder()
              .setBrokerId(id)
              .setBrokerEpoch(brokerEpoch)
              .addPartitions(
                  AlterPartitionRequest.Partition.newBuilder()
                      .setTopic(change.topic())
                      .setTopicId(change.topicId())
                      .setPartition(change.partition())
                      .setLeaderEpoch(change.leaderEpoch())
                      .setPartitionEpoch(change.partitionEpoch())
                      .addAllNewIsr(change.newIsr()))
              .build();
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
      schedule(QUORUM_TIMEOUT_MS, deliverFailure);
      if (!quorumReachable || dropped()) {
        return;
      }
      schedule(
          netDelay(),
          () -> {
            if (!quorumReachable) {
              return;
            }
            AlterPartitionResponse resp = quorum.alterPartition(req);
            count(
                "AlterPartition "
                    + (resp.getErrorCode() != ErrorCode.NONE
                        ? resp.getErrorCode()
                        : resp.getPartitions(0).getErrorCode()));
            if (dropped()) {
              return; // committed, but the answer is lost: the leader must stay safe
            }
            schedule(
                netDelay(),
                () -> {
                  if (answered[0]
                      || !alive
                      || incarnation != inc
                      || !quorumReachable
                      || partitions.get(partition.topicPartition()) != partition) {
                    return;
                  }
                  answered[0] = true;
                  if (resp.getErrorCode() != ErrorCode.NONE) {
                    partition.onIsrChangeResult(
                        change, resp.getErrorCode(), resp.getErrorMessage(), -1, List.of(), -1, -1);
                    return;
                  }
                  AlterPartitionResponse.PartitionResult pr = resp.getPartitions(0);
                  partition.onIsrChangeResult(
                      change,
                      pr.getErrorCode(),
                      pr.getErrorMessage(),
                      pr.getLeader(),
                      pr.getIsrList(),
                      pr.getLeaderEpoch(),
                      pr.getPartitionEpoch());
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

  /** The batches of one log as (base offset -> {last offset, crc, epoch}), kept in step. */
  static final class Shadow {
    /** One stored batch: its last offset, CRC and leader epoch. */
    record B(long last, long crc, int epoch, long producerId, int baseSequence) {}

    final TreeMap<Long, B> batches = new TreeMap<>();
    long end;
    long start;
    boolean stale = true;

    void sync(PartitionLog l) {
      if (!stale && (l.logEndOffset() < end || l.logStartOffset() != start || !lastMatches(l))) {
        stale = true;
      }
      if (stale) {
        batches.clear();
        start = l.logStartOffset();
        end = start;
        stale = false;
      }
      while (end < l.logEndOffset()) {
        ByteBuffer b =
            ReplicaTestSupport.bytes(l.read(end, 64 * 1024, Long.MAX_VALUE, true).slice());
        if (b.remaining() == 0) {
          break;
        }
        for (int pos = 0; pos < b.limit(); ) {
          RecordBatch rb = RecordBatch.at(b, pos);
          batches.put(
              rb.baseOffset(),
              new B(
                  rb.lastOffset(),
                  rb.checksum(),
                  rb.partitionLeaderEpoch(),
                  rb.producerId(),
                  rb.baseSequence()));
          end = rb.nextOffset();
          pos += rb.sizeInBytes();
        }
      }
    }

    private boolean lastMatches(PartitionLog l) {
      Map.Entry<Long, B> last = batches.lastEntry();
      if (last == null) {
        return true;
      }
      ByteBuffer b =
          ReplicaTestSupport.bytes(l.read(last.getKey(), 1, Long.MAX_VALUE, true).slice());
      if (b.remaining() == 0) {
        return false;
      }
      RecordBatch rb = RecordBatch.at(b, 0);
      return rb.baseOffset() == last.getKey() && rb.checksum() == last.getValue().crc();
    }

    /** Batches with base offset below {@code bound}. */
    Map<Long, B> below(long bound) {
      return batches.headMap(bound, false);
    }

    /** The same, printable (failure messages only). */
    String describe(long bound) {
      Map<Long, B> all = below(bound);
      StringBuilder sb =
          new StringBuilder(all.size() > 8 ? "[" + (all.size() - 8) + " earlier, " : "[");
      for (Map.Entry<Long, B> e :
          all.entrySet().stream().skip(Math.max(0, all.size() - 8)).toList()) {
        sb.append(e.getKey())
            .append("..")
            .append(e.getValue().last())
            .append('#')
            .append(Long.toHexString(e.getValue().crc()))
            .append("/e")
            .append(e.getValue().epoch())
            .append(' ');
      }
      return sb.append(']').toString();
    }
  }

  // ================================================================ invariants

  private String violation(String name, String detail) {
    return "invariant " + name + " violated at step " + step + " (seed " + seed + "): " + detail;
  }

  private void check(boolean ok, String name, java.util.function.Supplier<String> detail) {
    if (!ok) {
      throw new AssertionError(violation(name, detail.get()));
    }
  }

  void checkInvariants() {
    for (TopicPartition tp : tps) {
      List<SimBroker> leaders = new ArrayList<>();
      for (SimBroker b : brokers) {
        Partition p = b.alive ? b.partitions.get(tp) : null;
        if (p != null && p.role() == ReplicaRole.LEADER) {
          leaders.add(b);
        }
      }
      for (SimBroker l : leaders) {
        Partition p = l.partitions.get(tp);
        String key = tp + "@" + p.leaderEpoch();
        Integer prev = leaderOfEpoch.putIfAbsent(key, l.id);
        check(
            prev == null || prev == l.id,
            "SingleLeaderPerEpoch",
            () ->
                "brokers "
                    + prev
                    + " and "
                    + l.id
                    + " both led "
                    + tp
                    + " in epoch "
                    + p.leaderEpoch());
        long hw = p.log().highWatermark();
        String hwKey = l.id + "/" + l.incarnation + "/" + key;
        Long prevHw = leaderHighWatermark.put(hwKey, hw);
        check(
            prevHw == null || hw >= prevHw,
            "LeaderHighWatermarkNeverDecreases",
            () ->
                "broker "
                    + l.id
                    + " "
                    + tp
                    + " epoch "
                    + p.leaderEpoch()
                    + ": "
                    + prevHw
                    + " -> "
                    + hw);
        Map<Long, Shadow.B> committed = l.shadows.get(tp).below(hw);
        Set<String> writes = new HashSet<>();
        for (Map.Entry<Long, Shadow.B> e : committed.entrySet()) {
          Shadow.B b = e.getValue();
          if (b.producerId() >= 0) {
            String w = b.producerId() + "/" + b.baseSequence();
            check(
                writes.add(w),
                "NoDuplicateBelowHighWatermark",
                () ->
                    "leader "
                        + l.id
                        + " of "
                        + tp
                        + " holds producer/sequence "
                        + w
                        + " twice below HW "
                        + hw
                        + ", again at "
                        + e.getKey());
          }
        }
        for (int m : p.leaderState().maximalIsr()) {
          SimBroker mb = broker(m);
          if (m == l.id || !mb.alive || !mb.shadows.containsKey(tp)) {
            continue;
          }
          check(
              mb.shadows.get(tp).below(hw).equals(committed),
              "CommittedOnEveryIsrMember",
              () ->
                  "leader "
                      + l.id
                      + " of "
                      + tp
                      + " (epoch "
                      + p.leaderEpoch()
                      + ", HW "
                      + hw
                      + ") has "
                      + l.shadows.get(tp).describe(hw)
                      + " but ISR member "
                      + m
                      + " has "
                      + mb.shadows.get(tp).describe(hw));
        }
        for (SimBroker f : brokers) {
          Partition fp = f.alive ? f.partitions.get(tp) : null;
          if (fp == null
              || fp.role() != ReplicaRole.FOLLOWER
              || fp.leaderId() != l.id
              || fp.leaderEpoch() != p.leaderEpoch()) {
            continue;
          }
          long bound = Math.min(hw, fp.log().highWatermark());
          check(
              f.shadows.get(tp).below(bound).equals(l.shadows.get(tp).below(bound)),
              "FollowerPrefixConsistentBelowHighWatermark",
              () ->
                  "follower "
                      + f.id
                      + " of "
                      + tp
                      + " differs from leader "
                      + l.id
                      + " below "
                      + bound
                      + ": "
                      + f.shadows.get(tp).describe(bound)
                      + " vs "
                      + l.shadows.get(tp).describe(bound));
        }
      }
      PartitionState st = quorum.image.partition(tp);
      for (Acked a : acked) {
        if (!a.tp().equals(tp)) {
          continue;
        }
        for (int m : st.isr()) {
          SimBroker mb = broker(m);
          if (!mb.alive || !mb.shadows.containsKey(tp)) {
            continue;
          }
          Shadow.B found = mb.shadows.get(tp).batches.get(a.baseOffset());
          check(
              found != null && found.crc() == a.crc() && found.last() == a.lastOffset(),
              "AcknowledgedWriteNeverLost",
              () ->
                  "batch "
                      + a.baseOffset()
                      + ".."
                      + a.lastOffset()
                      + " of "
                      + tp
                      + " acknowledged at step "
                      + a.step()
                      + " is "
                      + (found == null ? "missing" : "different")
                      + " on ISR member "
                      + m
                      + " (ISR "
                      + st.isr()
                      + ", its log "
                      + mb.shadows.get(tp).describe(a.lastOffset() + 1)
                      + ")");
        }
      }
    }
  }

  /** After healing: every partition has a live leader whose log holds every acknowledged write. */
  private void checkConvergence() {
    for (TopicPartition tp : tps) {
      PartitionState st = quorum.image.partition(tp);
      check(st.hasLeader(), "ConvergesAfterHealing", () -> tp + " has no leader: " + st);
      SimBroker l = broker(st.leader());
      for (Acked a : acked) {
        if (a.tp().equals(tp)) {
          Shadow.B found = l.shadows.get(tp).batches.get(a.baseOffset());
          check(
              found != null && found.crc() == a.crc(),
              "ConvergesAfterHealing",
              () -> "leader " + l.id + " of " + tp + " lacks acknowledged batch " + a.baseOffset());
        }
      }
    }
  }

  String summary() {
    return "seed " + seed + ": " + step + " steps, " + acked.size() + " acknowledged, " + stats;
  }

  @Override
  public void close() throws IOException {
    for (SimBroker b : brokers) {
      if (b.alive) {
        b.logs.values().forEach(PartitionLog::close);
      }
    }
    scheduler.shutdownNow();
  }
}
