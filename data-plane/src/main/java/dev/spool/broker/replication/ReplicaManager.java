package dev.spool.broker.replication;

import dev.spool.broker.log.LogConfig;
import dev.spool.broker.log.LogManager;
import dev.spool.broker.log.LogStorageException;
import dev.spool.broker.log.PartitionLog;
import dev.spool.broker.metrics.BrokerMetrics;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.config.TopicConfig;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import java.util.function.ObjIntConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's replicas: one {@link Partition} per local replica, each confined to its owner {@link
 * PartitionWorkers worker}. Turns metadata into per-partition tasks (create the log, become leader
 * or follower, take a new ISR, stop and delete), routes produce/fetch/offset work to the owner
 * thread, sends ISR changes to the quorum and brings the answers back to the owner thread, and
 * tells the follower fetchers and waiting fetches about role changes.
 *
 * <p>Threads: {@link #applyMetadata} on the broker lifecycle thread (it only queues tasks); request
 * entry points on Netty threads (they only queue tasks and return futures); everything that touches
 * a partition on its owner worker. The partition map is concurrent; an entry is added and removed
 * only on the partition's owner worker.
 */
public final class ReplicaManager implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReplicaManager.class);

  private final int brokerId;
  private final ReplicationSettings settings;
  private final boolean flushEveryAppend;
  private final Clock clock;
  private final LogManager logManager;
  private final PartitionWorkers workers;
  private final QuorumClient quorum;
  private final LongSupplier brokerEpoch;
  private final FetchWaiters fetchWaiters;
  private final LeaderReplicationThrottle leaderThrottle;
  private final ConcurrentHashMap<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
  private final Listener listener = new Listener();
  private final String logPrefix;
  private volatile MetadataImage image = MetadataImage.EMPTY;
  private volatile ReplicaFetcherManager fetchers;
  private volatile ReplicaObserver observer = ReplicaObserver.NONE;
  private volatile BrokerMetrics metrics = BrokerMetrics.DISABLED;
  private volatile LeaseGuard leaseGuard;
  private volatile boolean leaseInstalled;
  private boolean leaseHeldAtLastTick; // worker 0 only; a broker starts without a lease
  private volatile boolean closed;

  public ReplicaManager(
      ReplicationSettings settings,
      boolean flushEveryAppend,
      Clock clock,
      LogManager logManager,
      PartitionWorkers workers,
      QuorumClient quorum,
      LongSupplier brokerEpoch,
      FetchWaiters fetchWaiters) {
    this.brokerId = settings.localBrokerId();
    this.settings = settings;
    this.flushEveryAppend = flushEveryAppend;
    this.clock = clock;
    this.logManager = logManager;
    this.workers = workers;
    this.quorum = quorum;
    this.brokerEpoch = brokerEpoch;
    this.fetchWaiters = fetchWaiters;
    // Read on every use: a ReplicationThrottleRecord changes it at runtime (0 = none).
    this.leaderThrottle =
        new LeaderReplicationThrottle(clock, () -> image.replicationThrottleBytesPerSec());
    this.logPrefix = "[node=" + brokerId + "]";
    this.leaseGuard = LeaseGuard.alwaysHeld(brokerId);
    logManager.onOffline(this::takeDirectoryOffline);
  }

  /**
   * The data directory failed (docs/architecture.md#storage-errors): every replica in it goes
   * OFFLINE on its owner worker (waiting produces fail with STORAGE_ERROR, fetchers stop), and from
   * now on produce, fetch and offset queries answer STORAGE_ERROR. The heartbeat reports the
   * directory; the controller moves the leaderships and ISR places. Any thread.
   */
  private void takeDirectoryOffline(String reason) {
    for (Partition p : partitions.values()) {
      // Best effort now; a full queue leaves it to the worker's next tick (offlineIfDirFailed).
      workers.execute(p.topicPartition(), () -> offlineIfDirFailed(p));
    }
  }

  /** Owner thread: takes {@code p} offline when the data directory failed. */
  private void offlineIfDirFailed(Partition p) {
    if (logManager.isOffline() && p.role() != ReplicaRole.OFFLINE) {
      p.goOffline(
          "data directory " + logManager.dataDir() + " failed: " + logManager.offlineReason());
    }
  }

  /**
   * Installs the broker's leadership lease (held while the active controller answered a heartbeat
   * within the session timeout): without it this broker refuses produces to the partitions it leads
   * ({@link LeaseGuard}). Until installed, the lease counts as held.
   */
  public void setLeadershipLease(BooleanSupplier held) {
    this.leaseGuard = new LeaseGuard(brokerId, held);
    this.leaseInstalled = true;
  }

  /**
   * Whether this broker holds its leadership lease now (always, until one is installed): without
   * it, it acts as the leader of nothing, the group coordinator included. Any thread.
   */
  public boolean leaseHeld() {
    return leaseGuard.holds();
  }

  /** Installs the follower fetchers (created after this manager: they read its partitions). */
  public void setFetchers(ReplicaFetcherManager fetchers) {
    this.fetchers = fetchers;
  }

  /** Installs the metrics that count ISR shrinks and expansions (off until then). */
  public void setMetrics(BrokerMetrics metrics) {
    this.metrics = metrics;
  }

  /**
   * Installs the one observer of role and high-watermark changes (the group coordinator, which
   * loads and drops the state of the offsets partitions this broker leads).
   */
  public void setObserver(ReplicaObserver observer) {
    this.observer = observer;
  }

  /**
   * Queues {@code task} on the owner worker of {@code tp} (whether or not a replica is hosted);
   * false when the worker's queue is full or stopped. For components confined to a partition's
   * owner thread, as the group coordinator's shards are.
   */
  public boolean executeOnOwner(TopicPartition tp, Runnable task) {
    return workers.execute(tp, task);
  }

  // ---------------------------------------------------------------- any thread

  public int brokerId() {
    return brokerId;
  }

  public MetadataImage image() {
    return image;
  }

  public Optional<Partition> partition(TopicPartition tp) {
    return Optional.ofNullable(partitions.get(tp));
  }

  public Collection<Partition> partitions() {
    return List.copyOf(partitions.values());
  }

  public FetchWaiters fetchWaiters() {
    return fetchWaiters;
  }

  /** The leader side of the replication throttle, for the fetch handler. Any thread. */
  public LeaderReplicationThrottle leaderThrottle() {
    return leaderThrottle;
  }

  public LogManager logManager() {
    return logManager;
  }

  public long brokerEpoch() {
    return brokerEpoch.getAsLong();
  }

  /** Runs {@code task} with the current partition on its owner thread; fails when not hosted. */
  public <T> CompletableFuture<T> onPartition(
      TopicPartition tp, java.util.function.Function<Partition, T> task, Supplier<T> notHosted) {
    return workers.submit(
        tp,
        () -> {
          Partition p = partitions.get(tp);
          return p == null ? notHosted.get() : task.apply(p);
        });
  }

  /** Appends a produce request's batches for {@code tp} on its owner thread. */
  public CompletableFuture<ProduceResult> appendRecords(
      TopicPartition tp, ByteBuffer records, int acks, int clientLeaderEpoch, long timeoutMs) {
    CompletableFuture<CompletableFuture<ProduceResult>> queued =
        onPartition(
            tp,
            p -> appendOnOwner(p, records, acks, clientLeaderEpoch, timeoutMs),
            () -> CompletableFuture.completedFuture(notHostedProduce(tp)));
    return queued
        .thenCompose(f -> f)
        .exceptionally(
            e ->
                ProduceResult.error(
                    ErrorCode.REQUEST_TIMED_OUT,
                    "broker "
                        + brokerId
                        + " could not queue the append to "
                        + tp
                        + ": "
                        + rootMessage(e)
                        + "; nothing was written"));
  }

  /** One partition of a produce; owner thread. A leader without its lease appends nothing. */
  private CompletableFuture<ProduceResult> appendOnOwner(
      Partition p, ByteBuffer records, int acks, int clientLeaderEpoch, long timeoutMs) {
    LeaseGuard guard = leaseGuard;
    if (p.role() == ReplicaRole.LEADER && !guard.holds()) {
      return CompletableFuture.completedFuture(guard.refusal(p.topicPartition()));
    }
    return p.appendAsLeader(records, acks, clientLeaderEpoch, timeoutMs);
  }

  /**
   * Runs {@code action(i, partition)} for every {@code tps[i]} on its owner thread (partition null
   * when not hosted here) with one task per worker, which handles its partitions in order, rather
   * than one task per partition: each task handed to an idle worker costs a wake-up (a futex call
   * on both sides and a context switch), and fetches touch many partitions many times a second.
   * {@code refused(i)} runs instead, on the caller's thread, for partitions whose worker refused
   * the task (full queue or stopped). The future completes when every partition was handled.
   */
  public CompletableFuture<Void> onPartitions(
      List<TopicPartition> tps, ObjIntConsumer<Partition> action, IntConsumer refused) {
    int n = tps.size();
    CompletableFuture<Void> done = new CompletableFuture<>();
    int[] workerOf = new int[n];
    boolean[] used = new boolean[workers.size()];
    int groups = 0;
    for (int i = 0; i < n; i++) {
      workerOf[i] = workers.workerFor(tps.get(i));
      if (!used[workerOf[i]]) {
        used[workerOf[i]] = true;
        groups++;
      }
    }
    if (groups == 0) {
      done.complete(null);
      return done;
    }
    AtomicInteger pending = new AtomicInteger(groups);
    for (int w = 0; w < used.length; w++) {
      if (!used[w]) {
        continue;
      }
      int worker = w;
      Runnable task =
          () -> {
            try {
              for (int i = 0; i < n; i++) {
                if (workerOf[i] == worker) {
                  action.accept(partitions.get(tps.get(i)), i);
                }
              }
            } finally {
              if (pending.decrementAndGet() == 0) {
                done.complete(null);
              }
            }
          };
      if (!workers.executeOn(worker, task)) {
        for (int i = 0; i < n; i++) {
          if (workerOf[i] == worker) {
            refused.accept(i);
          }
        }
        if (pending.decrementAndGet() == 0) {
          done.complete(null);
        }
      }
    }
    return done;
  }

  /**
   * Several partitions of one fetch, read on their owner threads ({@link #onPartitions}: one task
   * per worker). Results come back in the order of {@code tps}.
   */
  public CompletableFuture<PartitionFetchResult[]> fetchPartitions(
      List<TopicPartition> tps, List<FetchParams> params) {
    PartitionFetchResult[] out = new PartitionFetchResult[tps.size()];
    return onPartitions(
            tps,
            (p, i) -> out[i] = fetchOnOwner(p, tps.get(i), params.get(i)),
            i ->
                out[i] =
                    PartitionFetchResult.error(
                        ErrorCode.UNKNOWN_SERVER_ERROR,
                        "fetch from "
                            + tps.get(i)
                            + " failed: its partition worker has a full queue or stopped",
                        null))
        .thenApply(v -> out);
  }

  /** One partition of a fetch; owner thread. */
  private PartitionFetchResult fetchOnOwner(Partition p, TopicPartition tp, FetchParams params) {
    if (p == null && logManager.isOffline()) {
      return PartitionFetchResult.error(ErrorCode.STORAGE_ERROR, offlineDirMessage(tp), null);
    }
    if (p == null) {
      return PartitionFetchResult.error(
          ErrorCode.NOT_LEADER_OR_FOLLOWER,
          "broker " + brokerId + " has no replica of " + tp,
          hintFromImage(tp));
    }
    try {
      return p.fetch(params);
    } catch (RuntimeException e) {
      log.error("{} fetch from {} failed", logPrefix, tp, e);
      return PartitionFetchResult.error(
          ExceptionCodes.of(e), "fetch from " + tp + " failed: " + e.getMessage(), null);
    }
  }

  private ProduceResult notHostedProduce(TopicPartition tp) {
    PartitionState partition = image.partition(tp); // once: the image may change between reads
    if (logManager.isOffline() && partition != null && partition.isReplica(brokerId)) {
      return ProduceResult.error(ErrorCode.STORAGE_ERROR, offlineDirMessage(tp));
    }
    return ProduceResult.error(
        ErrorCode.NOT_LEADER_OR_FOLLOWER,
        "broker " + brokerId + " has no replica of " + tp,
        hintFromImage(tp));
  }

  private String offlineDirMessage(TopicPartition tp) {
    return "broker "
        + brokerId
        + " cannot serve "
        + tp
        + ": its data directory "
        + logManager.dataDir()
        + " is offline ("
        + logManager.offlineReason()
        + ")";
  }

  /** The leader and epoch of {@code tp} in this broker's metadata image. */
  public LeaderHintInfo hintFromImage(TopicPartition tp) {
    PartitionState st = image.partition(tp);
    return st == null ? LeaderHintInfo.UNKNOWN : new LeaderHintInfo(st.leader(), st.leaderEpoch());
  }

  static String rootMessage(Throwable e) {
    return String.valueOf(ExceptionCodes.unwrap(e).getMessage());
  }

  // ---------------------------------------------------------------- metadata (lifecycle thread)

  /**
   * Turns a metadata update into tasks on the owner workers: removals first (a topic deleted and
   * re-created under the same name appears in both), then new or changed partitions assigned here,
   * then config changes. Only queues work; a full worker queue makes this thread wait (metadata is
   * never dropped: a replica must learn that it lost leadership). The future completes when every
   * queued task has run, i.e. when the replicas reflect {@code newImage}.
   */
  public CompletableFuture<Void> applyMetadata(MetadataImage newImage, MetadataDelta delta) {
    countIsrChanges(this.image, delta);
    this.image = newImage;
    List<CompletableFuture<Void>> tasks = new ArrayList<>();
    for (Map.Entry<TopicPartition, PartitionState> e : delta.removedPartitions().entrySet()) {
      TopicPartition tp = e.getKey();
      String topicId = e.getValue().topicId();
      tasks.add(
          controlTask(
              tp, () -> removeReplica(tp, topicId, "topic " + tp.topic() + " was deleted")));
    }
    for (Map.Entry<TopicPartition, PartitionState> e : delta.changedPartitions().entrySet()) {
      TopicPartition tp = e.getKey();
      PartitionState st = e.getValue();
      TopicImage topic = newImage.topic(tp.topic());
      if (topic == null) {
        continue;
      }
      if (st.isReplica(brokerId)) {
        tasks.add(controlTask(tp, () -> becomeReplica(st, topic)));
      } else {
        tasks.add(
            controlTask(
                tp,
                () ->
                    removeReplica(
                        tp, null, "this broker is no longer a replica (" + st.replicas() + ")")));
      }
    }
    for (TopicImage t : delta.changedTopics().values()) {
      for (PartitionState st : t.partitions()) {
        if (st.isReplica(brokerId) && !delta.changedPartitions().containsKey(st.topicPartition())) {
          tasks.add(controlTask(st.topicPartition(), () -> updateConfig(st, t)));
        }
      }
    }
    return CompletableFuture.allOf(tasks.toArray(new CompletableFuture[0]));
  }

  /**
   * Counts the ISR changes the quorum committed for partitions this broker leads (Kafka counts them
   * on the leader too). Lifecycle thread; reads only the immutable images.
   */
  private void countIsrChanges(MetadataImage old, MetadataDelta delta) {
    BrokerMetrics m = metrics;
    if (!m.enabled()) {
      return;
    }
    for (Map.Entry<TopicPartition, PartitionState> e : delta.changedPartitions().entrySet()) {
      PartitionState now = e.getValue();
      PartitionState before = old.partition(e.getKey());
      if (before == null || now.leader() != brokerId || before.leader() != brokerId) {
        continue;
      }
      if (now.isr().size() < before.isr().size()) {
        m.isrShrunk();
      } else if (now.isr().size() > before.isr().size()) {
        m.isrExpanded();
      }
    }
  }

  /**
   * Called once the broker has caught up with the metadata (unfenced): local logs of partitions
   * that are no longer assigned here (their topic was deleted while this broker was down) go. Not
   * earlier: an image still being replayed lacks topics created later in the log.
   */
  public void deleteOrphanLogs() {
    MetadataImage img = image;
    for (PartitionLog l : logManager.all()) {
      TopicPartition tp = l.topicPartition();
      PartitionState st = img.partition(tp);
      boolean assigned =
          st != null
              && st.isReplica(brokerId)
              && (l.topicId() == null || l.topicId().equals(st.topicId()));
      if (!assigned) {
        controlTask(
            tp,
            () -> {
              PartitionState now = image.partition(tp);
              if (now == null || !now.isReplica(brokerId)) {
                removeReplica(tp, null, "not assigned to this broker in the metadata");
              }
            });
      }
    }
  }

  private CompletableFuture<Void> controlTask(TopicPartition tp, Runnable task) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Runnable wrapped =
        () -> {
          try {
            task.run();
          } finally {
            done.complete(null);
          }
        };
    long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!workers.execute(tp, wrapped)) {
      if (closed) {
        done.complete(null);
        return done;
      }
      if (System.nanoTime() > deadlineNs) {
        log.error(
            "{} the worker of {} refused a metadata task for 60 s; dropping it", logPrefix, tp);
        done.complete(null);
        return done;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // backpressure from a full worker
    }
    return done;
  }

  /** Owner thread: make sure the replica exists, then apply the partition state. */
  private void becomeReplica(PartitionState st, TopicImage topic) {
    TopicPartition tp = st.topicPartition();
    Partition p = partitions.get(tp);
    LogConfig cfg = LogConfig.from(topic.config(), flushEveryAppend);
    if (p != null && p.log().topicId() != null && !p.log().topicId().equals(st.topicId())) {
      removeReplica(tp, null, "topic " + tp.topic() + " was re-created with id " + st.topicId());
      p = null;
    }
    if (p == null) {
      if (logManager.isOffline()) {
        return; // a failed directory hosts no new replica; requests answer STORAGE_ERROR
      }
      PartitionLog l;
      try {
        l = logManager.getOrCreate(tp, st.topicId(), cfg);
      } catch (LogStorageException | IllegalStateException e) {
        log.error(
            "{} cannot open the log of {}: {}; the replica stays offline",
            logPrefix,
            tp,
            e.getMessage());
        if (e instanceof LogStorageException) {
          logManager.markOffline("cannot open the log of " + tp + ": " + e.getMessage());
        }
        return;
      }
      p = new Partition(tp, l, clock, listener, settings);
      partitions.put(tp, p);
    }
    if (!cfg.equals(p.log().config()) && !p.log().isClosed()) {
      p.log().updateConfig(cfg);
    }
    int minIsr = TopicConfig.effectiveMinInsyncReplicas(topic.config(), st.replicationFactor());
    Partition.StateChange change = p.applyPartitionState(st, minIsr);
    if (change == Partition.StateChange.ISR_UPDATED || change == Partition.StateChange.UNCHANGED) {
      p.setMinInsyncReplicas(minIsr);
    }
  }

  private void updateConfig(PartitionState st, TopicImage topic) {
    Partition p = partitions.get(st.topicPartition());
    if (p == null || p.log().isClosed()) {
      return;
    }
    LogConfig cfg = LogConfig.from(topic.config(), flushEveryAppend);
    if (!cfg.equals(p.log().config())) {
      p.log().updateConfig(cfg);
    }
    p.setMinInsyncReplicas(
        TopicConfig.effectiveMinInsyncReplicas(topic.config(), st.replicationFactor()));
  }

  /** Owner thread: stop the replica and delete its log (only the log of {@code topicId} if set). */
  private void removeReplica(TopicPartition tp, String topicId, String reason) {
    Partition p = partitions.get(tp);
    if (p != null
        && topicId != null
        && p.log().topicId() != null
        && !p.log().topicId().equals(topicId)) {
      return; // the removal of an older incarnation of the topic
    }
    if (p != null) {
      partitions.remove(tp);
      p.stop(reason);
    }
    Optional<PartitionLog> l = logManager.get(tp);
    if (l.isPresent()
        && (topicId == null || l.get().topicId() == null || l.get().topicId().equals(topicId))) {
      try {
        logManager.delete(tp);
        log.info("{} deleted the replica of {}: {}", logPrefix, tp, reason);
      } catch (LogStorageException | IllegalStateException e) {
        log.error("{} cannot delete the log of {}: {}", logPrefix, tp, e.getMessage());
      }
    }
  }

  // ---------------------------------------------------------------- ticks (owner workers)

  /**
   * Periodic work of the partitions owned by {@code worker}. While the leadership lease is lost,
   * the acks=all produces waiting in this worker's leaders are answered NOT_LEADER_OR_FOLLOWER
   * ({@link LeaseGuard}); worker 0 also logs each loss and return of the lease (the chaos timelines
   * read these lines).
   */
  public void tick(int worker) {
    LeaseGuard guard = leaseGuard;
    boolean leaseLost = leaseInstalled && !guard.holds();
    if (worker == 0) {
      logLeaseChange(!leaseLost);
    }
    int failed = 0;
    for (Partition p : partitions.values()) {
      if (workers.workerFor(p.topicPartition()) == worker) {
        try {
          offlineIfDirFailed(p);
          if (leaseLost && p.role() == ReplicaRole.LEADER) {
            failed +=
                p.failWaitingProduces(
                    ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    guard.lostWhileWaiting(p.topicPartition()),
                    LeaderHintInfo.UNKNOWN);
          }
          p.tick();
        } catch (RuntimeException e) {
          log.error("{} tick of {} failed", logPrefix, p.topicPartition(), e);
        }
      }
    }
    if (failed > 0) {
      log.info(
          "{} {} acks=all produces waiting for replication answered NOT_LEADER_OR_FOLLOWER: the"
              + " leadership lease is lost",
          logPrefix,
          failed);
    }
  }

  /** Worker 0: logs each loss and return of the lease once installed. */
  private void logLeaseChange(boolean held) {
    if (!leaseInstalled || held == leaseHeldAtLastTick) {
      return; // nothing leads before the lifecycle (which installs the lease) brings metadata
    }
    leaseHeldAtLastTick = held;
    if (held) {
      log.info(
          "{} leadership lease held: the partitions this broker leads take produces", logPrefix);
    } else {
      log.warn(
          "{} leadership lease lost: no heartbeat answer from the active controller within the"
              + " session timeout; refusing produces to led partitions",
          logPrefix);
    }
  }

  // ---------------------------------------------------------------- partition listener

  private final class Listener implements PartitionListener {
    @Override
    public void sendIsrChange(Partition partition, IsrChange change) {
      AlterPartitionRequest req = change.toRequest(brokerId, brokerEpoch.getAsLong());
      TopicPartition tp = partition.topicPartition();
      quorum
          .alterPartition(req)
          .whenComplete(
              (resp, err) -> {
                Runnable answer = () -> deliverIsrAnswer(partition, change, resp, err);
                if (!workers.execute(tp, answer)) {
                  log.warn(
                      "{} could not queue the AlterPartition answer for {}; it will be resent",
                      logPrefix,
                      tp);
                  workers.execute(
                      tp,
                      () ->
                          partition.onIsrChangeResult(
                              change,
                              ErrorCode.REQUEST_TIMED_OUT,
                              "answer dropped",
                              -1,
                              List.of(),
                              -1,
                              -1));
                }
              });
    }

    private void deliverIsrAnswer(
        Partition partition, IsrChange change, AlterPartitionResponse resp, Throwable err) {
      if (partitions.get(partition.topicPartition()) != partition) {
        return;
      }
      if (err != null) {
        partition.onIsrChangeResult(
            change,
            ExceptionCodes.ofQuorumCall(err),
            String.valueOf(ExceptionCodes.unwrap(err).getMessage()),
            -1,
            List.of(),
            -1,
            -1);
        return;
      }
      change.deliverAnswer(partition, resp);
    }

    @Override
    public void onHighWatermarkChanged(TopicPartition tp, long highWatermark) {
      fetchWaiters.wake(tp, true);
      observer.onHighWatermarkChanged(tp, highWatermark);
    }

    @Override
    public void onAppended(TopicPartition tp, long logEndOffset) {
      fetchWaiters.wake(tp, false);
    }

    @Override
    public void onRoleChanged(
        Partition partition, ReplicaRole role, int leaderId, int leaderEpoch) {
      ReplicaFetcherManager f = fetchers;
      if (f != null) {
        f.onRoleChanged(partition);
      }
      fetchWaiters.wakeAll(partition.topicPartition());
      observer.onRoleChanged(partition, role, leaderEpoch);
    }

    @Override
    public void onStorageError(Partition partition, String reason) {
      logManager.markOffline(partition.topicPartition() + ": " + reason);
    }
  }

  // ---------------------------------------------------------------- shutdown

  /** Fails waiting produces and stops the replicas; call on shutdown before the workers stop. */
  @Override
  public void close() {
    closed = true;
    List<Partition> all = new ArrayList<>(partitions.values());
    for (Partition p : all) {
      workers.execute(p.topicPartition(), () -> p.stop("broker shutting down"));
    }
  }
}
