package dev.spool.quorum.controller;

import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.message.BrokerHeartbeatRequest;
import dev.spool.quorum.message.BrokerHeartbeatResponse;
import dev.spool.quorum.message.ControllerHeartbeatRequest;
import dev.spool.quorum.message.ControllerHeartbeatResponse;
import dev.spool.quorum.message.ControllerWriteResponse;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.PartitionChangeRecord;
import dev.spool.quorum.message.RecordResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active controller's duties for one Raft term: the periodic tick ({@link ClusterDuties}) and
 * broker heartbeats. Created when this node becomes the ready Raft leader and closed when it stops
 * being leader. Decisions are written as records through a {@link RecordWriter} (the Ratis layer
 * submits them through the log, stamped with this term).
 *
 * <p>Threading: everything here runs on one thread, this object's "controller thread"; the
 * heartbeat tracker is confined to it. At most one controller write is in flight: a tick that finds
 * one pending does nothing, which bounds the work when the quorum is slow.
 */
public final class ActiveController implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ActiveController.class);

  /** Submits a batch decided by the controller through the metadata log. */
  public interface RecordWriter {
    CompletableFuture<ControllerWriteResponse> write(long term, String reason, MetadataBatch batch);
  }

  private final int nodeId;
  private final long term;
  private final ControllerSettings settings;
  private final long tickIntervalMs;
  private final Clock clock;
  private final MetadataFeed feed;
  private final RecordWriter writer;
  private final BooleanSupplier leadershipConfirmed;
  private final BrokerHeartbeatTracker tracker;

  /**
   * When each registered broker's last heartbeat reached this controller (its clock's monotonic ms;
   * a broker not heard from since this controller started counts from its start), for the metrics:
   * written on the controller thread, read by any thread.
   */
  private final ConcurrentHashMap<Integer, Long> lastHeartbeatMs = new ConcurrentHashMap<>();

  /**
   * The metadata.version range each controller (voter or listener, this one included) last reported
   * in a controller heartbeat, and when (docs/architecture.md#versioned-metadata): a
   * controller-only node never registers, so this is where its range is known. Empty but for this
   * controller when it becomes active. Written by the RPC threads that answer controller
   * heartbeats, read by any thread.
   */
  private final ConcurrentHashMap<Integer, Reported> controllerRanges = new ConcurrentHashMap<>();

  /** One controller's reported range and when it arrived (this clock's monotonic ms). */
  private record Reported(MetadataVersion.Range range, long atMs) {}

  /**
   * A controller's reported range as {@link #controllerRanges} gives it.
   *
   * @param ageMs milliseconds since it was reported (0 for the active controller itself)
   */
  public record ControllerRange(MetadataVersion.Range range, long ageMs) {}

  private final ScheduledExecutorService thread;
  private boolean writeInFlight;
  private boolean tickRequested;
  private long nextBalanceMs;
  private long lastTickMs = -1;

  /**
   * Whether the last tick heard from no other broker ({@code forgiveOwnIsolation}); for the log.
   */
  private boolean isolated;

  /**
   * @param leadershipConfirmed whether this node's Raft leadership is confirmed by a majority of
   *     voters recently enough that no other controller can have been elected meanwhile; only then
   *     do heartbeat answers grant brokers a leadership lease (a deposed controller that does not
   *     know it yet must not extend the lease of a broker the new controller is about to fence)
   */
  public ActiveController(
      int nodeId,
      long term,
      ControllerSettings settings,
      long tickIntervalMs,
      Clock clock,
      MetadataFeed feed,
      RecordWriter writer,
      BooleanSupplier leadershipConfirmed) {
    this.nodeId = nodeId;
    this.leadershipConfirmed = leadershipConfirmed;
    this.term = term;
    this.settings = settings;
    this.tickIntervalMs = tickIntervalMs;
    this.clock = clock;
    this.feed = feed;
    this.writer = writer;
    this.tracker = new BrokerHeartbeatTracker(settings.sessionTimeoutMs());
    controllerRanges.put(nodeId, new Reported(settings.metadataVersions(), Long.MAX_VALUE));
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "controller-" + nodeId + "-term-" + term);
              t.setDaemon(true);
              return t;
            });
  }

  public long term() {
    return term;
  }

  /** Starts the duties. Every registered broker gets a full session timeout from now. */
  public void start() {
    thread.execute(
        () -> {
          long now = clock.monotonicMs();
          tracker.observe(feed.image(), now);
          noteRegistrations(feed.image(), now);
          nextBalanceMs = now + settings.leaderImbalanceCheckIntervalMs();
          log.info(
              "[node={} term={}] active controller started: {} brokers get a session of {} ms",
              nodeId,
              term,
              feed.image().brokers().size(),
              settings.sessionTimeoutMs());
        });
    thread.scheduleWithFixedDelay(
        this::tick, tickIntervalMs, tickIntervalMs, TimeUnit.MILLISECONDS);
  }

  /** Answers a heartbeat on the controller thread. */
  public CompletableFuture<BrokerHeartbeatResponse> heartbeat(BrokerHeartbeatRequest req) {
    try {
      return CompletableFuture.supplyAsync(() -> handleHeartbeat(req), thread);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.completedFuture(
          BrokerHeartbeatResponse.newBuilder()
              .setErrorCode(ErrorCode.NOT_CONTROLLER)
              .setErrorMessage("controller stopped")
              .build());
    }
  }

  private BrokerHeartbeatResponse handleHeartbeat(BrokerHeartbeatRequest req) {
    long now = clock.monotonicMs();
    MetadataImage image = feed.image();
    BrokerRegistration b = image.broker(req.getBrokerId());
    BrokerHeartbeatResponse.Builder resp =
        BrokerHeartbeatResponse.newBuilder().setControllerId(nodeId);
    if (b == null || b.epoch() != req.getBrokerEpoch()) {
      return resp.setErrorCode(ErrorCode.STALE_BROKER_EPOCH)
          .setErrorMessage(
              "broker "
                  + req.getBrokerId()
                  + " epoch "
                  + req.getBrokerEpoch()
                  + " is not the current "
                  + "registration"
                  + (b == null ? "" : " (" + b.epoch() + ")")
                  + "; register again")
          .build();
    }
    tracker.observe(image, now);
    lastHeartbeatMs.put(b.id(), now);
    boolean newUnreachable = false;
    for (int leader : req.getUnreachableLeadersList()) {
      newUnreachable |= !tracker.reportsUnreachable(b, leader);
    }
    tracker.heartbeat(
        b.id(),
        b.epoch(),
        req.getMetadataOffset(),
        req.getWantFence(),
        req.getWantShutdown(),
        req.getOfflineDirsList(),
        Set.copyOf(req.getUnreachableLeadersList()),
        now);
    int max =
        req.getMaxBatches() > 0
            ? Math.min(req.getMaxBatches(), settings.maxBatchesPerHeartbeat())
            : settings.maxBatchesPerHeartbeat();
    MetadataFeed.Slice slice = feed.read(req.getMetadataOffset(), max);
    resp.setIsCaughtUp(req.getMetadataOffset() >= b.epoch())
        .setIsFenced(b.fenced())
        .setLeaseMs(
            !b.fenced() && leadershipConfirmed.getAsBoolean() ? settings.sessionTimeoutMs() : 0)
        .setShouldShutdown(req.getWantShutdown() && ClusterDuties.shutdownComplete(image, b.id()))
        .addAllBatches(slice.batches())
        .setMetadataOffset(slice.toOffset())
        .setMore(slice.more());
    if (slice.fullImage() != null) {
      resp.setFullImage(slice.fullImage());
    }
    boolean actionNeeded =
        newUnreachable
            || !tracker.newOfflineDirs(b).isEmpty()
            || (b.fenced()
                ? tracker.mayUnfence(b, now)
                : req.getWantFence() || (req.getWantShutdown() && !b.inControlledShutdown()));
    if (actionNeeded && !tickRequested) {
      tickRequested = true;
      thread.execute(this::tick);
    }
    return resp.build();
  }

  private void tick() {
    tickRequested = false;
    long now = clock.monotonicMs();
    forgiveOwnStall(now);
    if (writeInFlight) {
      return;
    }
    try {
      MetadataImage image = feed.image();
      tracker.observe(image, now);
      noteRegistrations(image, now);
      boolean balanceDue = settings.autoLeaderRebalance() && now >= nextBalanceMs;
      if (balanceDue) {
        nextBalanceMs = now + settings.leaderImbalanceCheckIntervalMs();
      }
      ClusterDuties.Outcome outcome =
          ClusterDuties.decide(image, tracker, now, balanceDue, settings);
      if (outcome.isEmpty()) {
        return;
      }
      log.info(
          "[node={} term={}] controller write at offset {}: {} ({} records)",
          nodeId,
          term,
          image.offset(),
          outcome.reason(),
          outcome.records().size());
      writeInFlight = true;
      writer
          .write(
              term,
              outcome.reason(),
              MetadataBatch.newBuilder().addAllRecords(outcome.records()).build())
          .whenCompleteAsync((resp, err) -> onWriteDone(resp, err), thread);
    } catch (RuntimeException e) {
      // A bug in a decision must not kill the duty loop; the next tick retries.
      log.error("[node={} term={}] controller tick failed", nodeId, term, e);
    }
  }

  /**
   * Brokers registered since the last look start their heartbeat age now; gone ones are dropped.
   */
  private void noteRegistrations(MetadataImage image, long now) {
    for (Integer id : image.brokers().keySet()) {
      lastHeartbeatMs.putIfAbsent(id, now);
    }
    lastHeartbeatMs.keySet().removeIf(id -> image.broker(id) == null);
  }

  /**
   * Milliseconds since each registered broker's last heartbeat reached this controller, by broker
   * id (a broker not heard from since this controller started counts from its start). Any thread.
   */
  public Map<Integer, Long> heartbeatAgesMs() {
    long now = clock.monotonicMs();
    Map<Integer, Long> ages = new TreeMap<>();
    lastHeartbeatMs.forEach((id, at) -> ages.put(id, Math.max(0, now - at)));
    return ages;
  }

  /**
   * Milliseconds since broker {@code brokerId}'s last heartbeat reached this controller (as {@link
   * #heartbeatAgesMs}), or null for a broker it does not track. Any thread.
   */
  public Long heartbeatAgeMs(int brokerId) {
    Long at = lastHeartbeatMs.get(brokerId);
    return at == null ? null : Math.max(0, clock.monotonicMs() - at);
  }

  /**
   * Records the metadata.version range a controller reported (a controller heartbeat, read-only:
   * nothing is logged). Any thread.
   *
   * @throws RequestRejectedException INVALID_REQUEST for a negative node id or an illegal range
   */
  public ControllerHeartbeatResponse controllerHeartbeat(ControllerHeartbeatRequest req)
      throws RequestRejectedException {
    int min = req.getMinMetadataVersion();
    int max = req.getMaxMetadataVersion();
    if (req.getNodeId() < 0 || min < MetadataVersion.V1 || max < min) {
      throw new RequestRejectedException(
          ErrorCode.INVALID_REQUEST,
          "controller heartbeat of node "
              + req.getNodeId()
              + " with metadata.version range "
              + min
              + ".."
              + max
              + ": needs a node id >= 0 and 1 <= min <= max");
    }
    if (req.getNodeId() != nodeId) {
      MetadataVersion.Range range = new MetadataVersion.Range(min, max);
      Reported before =
          controllerRanges.put(req.getNodeId(), new Reported(range, clock.monotonicMs()));
      if (before == null || !before.range().equals(range)) {
        log.info(
            "[node={} term={}] controller {} supports metadata.version {}",
            nodeId,
            term,
            req.getNodeId(),
            range);
      }
    }
    return ControllerHeartbeatResponse.newBuilder().setControllerId(nodeId).build();
  }

  /**
   * The metadata.version range controller {@code id} last reported to this active controller (its
   * own settings' range for this one), or null when it has not reported one yet. Any thread.
   */
  public MetadataVersion.Range controllerRange(int id) {
    Reported r = controllerRanges.get(id);
    return r == null ? null : r.range();
  }

  /** Every controller's reported range, by node id, with its age. Any thread. */
  public Map<Integer, ControllerRange> controllerRanges() {
    long now = clock.monotonicMs();
    Map<Integer, ControllerRange> out = new TreeMap<>();
    controllerRanges.forEach(
        (id, r) ->
            out.put(
                id,
                new ControllerRange(
                    r.range(), r.atMs() == Long.MAX_VALUE ? 0 : Math.max(0, now - r.atMs()))));
    return out;
  }

  /**
   * Ticks come every {@code tickIntervalMs}; a much longer gap means this controller was not
   * running, not that the brokers went silent. Their sessions are extended by the gap so that a
   * paused controller does not fence everyone when it resumes (if it lost leadership meanwhile, its
   * writes would not commit anyway; if it is the only voter, they would).
   */
  private void forgiveOwnStall(long now) {
    if (lastTickMs >= 0) {
      long gap = now - lastTickMs;
      if (gap > Math.max(5 * tickIntervalMs, settings.sessionTimeoutMs() / 3)) {
        tracker.extendSessions(gap - tickIntervalMs);
        log.warn(
            "[node={} term={}] controller thread stalled for {} ms; broker sessions extended",
            nodeId,
            term,
            gap);
      } else if (tracker.forgiveOwnIsolation(nodeId, now, gap)) {
        if (!isolated) {
          isolated = true;
          log.warn(
              "[node={} term={}] no other broker heard from for {} ms: this node is likelier"
                  + " cut off than all of them dead; fencing nobody until one is heard again",
              nodeId,
              term,
              settings.sessionTimeoutMs() / 2);
        }
      } else if (isolated) {
        isolated = false;
        log.info("[node={} term={}] another broker heard again", nodeId, term);
      }
    }
    lastTickMs = now;
  }

  private void onWriteDone(ControllerWriteResponse resp, Throwable err) {
    writeInFlight = false;
    if (err != null) {
      log.warn("[node={} term={}] controller write failed: {}", nodeId, term, err.toString());
      return;
    }
    if (resp.getErrorCode() != ErrorCode.NONE) {
      log.warn(
          "[node={} term={}] controller write refused: {} {}",
          nodeId,
          term,
          resp.getErrorCode(),
          resp.getErrorMessage());
      return;
    }
    long rejected =
        resp.getResultsList().stream().filter(r -> r.getErrorCode() != ErrorCode.NONE).count();
    if (rejected > 0) {
      RecordResult first =
          resp.getResultsList().stream()
              .filter(r -> r.getErrorCode() != ErrorCode.NONE)
              .findFirst()
              .orElseThrow();
      log.info(
          "[node={} term={}] {} controller records lost a race ({}: {}); the next tick "
              + "decides again",
          nodeId,
          term,
          rejected,
          first.getErrorCode(),
          first.getErrorMessage());
    }
  }

  private record Change(PartitionState was, PartitionState now) {}

  /** Above this many partition changes in one batch, one INFO line sums them up instead. */
  static final int LOGGED_CHANGES_PER_BATCH = 50;

  /**
   * One INFO line per partition whose leader, leader epoch or ISR an applied batch changed, as
   * committed: the moment a failover or an ISR change is decided for good (the chaos report's fault
   * timelines read it, chaos-tests/README.md#fault-timelines). A batch changing more than {@link
   * #LOGGED_CHANGES_PER_BATCH} partitions (a broker's merged AlterPartition, a mass failover) gets
   * one INFO line with the count and its per-partition lines at DEBUG, so ISR churn across
   * thousands of partitions does not become thousands of lines a second. Only partition changes are
   * looked at, so a batch without one costs a loop over its records. The apply thread.
   */
  public void noteCommitted(
      long offset, MetadataImage before, MetadataImage after, MetadataBatch batch) {
    List<Change> changes = new ArrayList<>();
    int leaderMoves = 0;
    for (MetadataRecord r : batch.getRecordsList()) {
      if (r.getRecordCase() != MetadataRecord.RecordCase.PARTITION_CHANGE) {
        continue;
      }
      PartitionChangeRecord c = r.getPartitionChange();
      TopicImage topic = after.topicById(c.getTopicId());
      PartitionState now = topic == null ? null : topic.partition(c.getPartition());
      PartitionState was = now == null ? null : before.partition(now.topicPartition());
      if (now == null
          || was == null
          || (was.leaderEpoch() == now.leaderEpoch() && was.isr().equals(now.isr()))) {
        continue;
      }
      leaderMoves += was.leader() != now.leader() ? 1 : 0;
      changes.add(new Change(was, now));
    }
    boolean summed = changes.size() > LOGGED_CHANGES_PER_BATCH;
    if (summed) {
      log.info(
          "[node={} term={}] committed at offset {}: {} partition changes ({} leader moves);"
              + " each at DEBUG",
          nodeId,
          term,
          offset,
          changes.size(),
          leaderMoves);
      if (!log.isDebugEnabled()) {
        return;
      }
    }
    for (Change c : changes) {
      String line =
          String.format(
              "[node=%d term=%d] committed at offset %d: partition %s leader %d -> %d epoch %d ->"
                  + " %d isr %s -> %s",
              nodeId,
              term,
              offset,
              c.now().topicPartition(),
              c.was().leader(),
              c.now().leader(),
              c.was().leaderEpoch(),
              c.now().leaderEpoch(),
              c.was().isr(),
              c.now().isr());
      if (summed) {
        log.debug(line);
      } else {
        log.info(line);
      }
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
    log.info("[node={} term={}] active controller stopped", nodeId, term);
  }
}
