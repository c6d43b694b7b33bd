package dev.spool.broker.replication;

import dev.spool.broker.log.LeaderEpochCache;
import dev.spool.broker.log.LogAppendInfo;
import dev.spool.broker.log.LogReadResult;
import dev.spool.broker.log.LogStorageException;
import dev.spool.broker.log.OffsetOutOfRangeException;
import dev.spool.broker.log.PartitionLog;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.PartitionState;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One local replica of a partition: its {@link PartitionLog}, its {@link ReplicaRole}, the {@link
 * LeaderState} while it leads, the known leader and epoch while it follows, the acks=all produces
 * waiting for the high watermark (its {@link ProducePurgatory}) and the ISR change it has at the
 * quorum ({@link InFlightIsrChange}). Failures become error codes through {@link ExceptionCodes}.
 *
 * <p>Threads: every method that is not documented "any thread" runs on the partition's owner thread
 * (its partition worker in production, the simulator's single thread in the simulation): nothing
 * here locks. {@link #role()}, {@link #leaderEpoch()}, {@link #leaderId()} and {@link
 * #followerFetchState()} read volatile fields and may be called from any thread. Collaborators are
 * injected (clock, log, {@link PartitionListener}), so the simulation drives exactly this code
 * synchronously.
 *
 * <p>Invariants enforced here (see package-info): the leader's high watermark never decreases; an
 * acks=all produce completes only once the high watermark passes its last offset, computed over the
 * maximal ISR; a replica that stops leading fails its waiting produces; a follower truncates only
 * by leader epochs (diverging epoch) or below the leader's log start, never by the high watermark.
 * A broken invariant takes the partition OFFLINE rather than let it go on.
 */
public final class Partition {
  private static final Logger log = LoggerFactory.getLogger(Partition.class);

  /** What {@link #applyPartitionState} did. */
  public enum StateChange {
    STALE,
    UNCHANGED,
    BECAME_LEADER,
    BECAME_FOLLOWER,
    ISR_UPDATED
  }

  /** What {@link #processFetchResponse} did with one partition of a follower fetch answer. */
  public enum FollowerOutcome {
    APPENDED,
    TRUNCATED,
    NOTHING,
    STALE,
    RETRY_LATER,
    OFFLINE
  }

  private final TopicPartition tp;
  private final PartitionLog log0;
  private final Clock clock;
  private final PartitionListener listener;
  private final ReplicationSettings settings;
  private final int localBrokerId;
  private final ProducePurgatory purgatory;
  private final InFlightIsrChange isrChange;
  private final FollowerLog follower;

  private volatile ReplicaRole role = ReplicaRole.NONE;
  private volatile int leaderId = -1;
  private volatile int leaderEpoch = -1;
  private volatile int partitionEpoch = -1;
  private volatile List<Integer> replicas = List.of();
  private volatile String offlineReason = "";
  private String topicId = "";
  private int minInsyncReplicas = 1;
  private LeaderState leaderState;

  public Partition(
      TopicPartition tp,
      PartitionLog log,
      Clock clock,
      PartitionListener listener,
      ReplicationSettings settings) {
    this.tp = tp;
    this.log0 = log;
    this.clock = clock;
    this.listener = listener;
    this.settings = settings;
    this.localBrokerId = settings.localBrokerId();
    this.purgatory = new ProducePurgatory(tp);
    this.follower = new FollowerLog(log, this::epochEndOffset, this::prefix);
    this.isrChange = new InFlightIsrChange(settings.isrChangeRetryBackoffMs());
  }

  // ---------------------------------------------------------------- any thread

  public TopicPartition topicPartition() {
    return tp;
  }

  public PartitionLog log() {
    return log0;
  }

  public ReplicaRole role() {
    return role;
  }

  public int leaderId() {
    return leaderId;
  }

  public int leaderEpoch() {
    return leaderEpoch;
  }

  public int partitionEpoch() {
    return partitionEpoch;
  }

  public List<Integer> replicas() {
    return replicas;
  }

  /** Produces waiting in the acks=all purgatory (as of the owner's last change); any thread. */
  public int waitingProduces() {
    return purgatory.publishedSize();
  }

  public LeaderHintInfo hint() {
    return new LeaderHintInfo(leaderId, leaderEpoch);
  }

  public String offlineReason() {
    return offlineReason;
  }

  /** The next fetch of a follower, or empty when this replica does not follow a known leader. */
  public Optional<FollowerFetchState> followerFetchState() {
    int leader = leaderId;
    int epoch = leaderEpoch;
    if (role != ReplicaRole.FOLLOWER || leader < 0) {
      return Optional.empty();
    }
    OptionalInt last = log0.leaderEpochCache().latestEpoch();
    return Optional.of(
        new FollowerFetchState(
            leader,
            epoch,
            log0.logEndOffset(),
            last.isPresent() ? last.getAsInt() : -1,
            log0.logStartOffset()));
  }

  private String prefix() {
    return "[node=" + localBrokerId + " partition=" + tp + " epoch=" + leaderEpoch + "] ";
  }

  // ---------------------------------------------------------------- owner thread: state

  /** The leader's view, while leading (tests and the simulation's invariant checks). */
  public LeaderState leaderState() {
    return leaderState;
  }

  private void transitionTo(ReplicaRole next, String reason) {
    ReplicaRole from = role;
    if (!from.canMoveTo(next)) {
      throw new IllegalStateException(
          prefix() + "illegal role change " + from + " -> " + next + " (" + reason + ")");
    }
    role = next;
    log.info("{}{} -> {}: {}", prefix(), from, next, reason);
  }

  /**
   * Applies the quorum's state of this partition (from a metadata update, or an AlterPartition
   * answer): becomes leader or follower, or takes a new ISR. A state older than what this replica
   * knows is ignored. The caller has checked that this broker is a replica.
   */
  public StateChange applyPartitionState(PartitionState st, int minIsr) {
    if (role == ReplicaRole.OFFLINE) {
      return StateChange.UNCHANGED;
    }
    // The AlterPartition answer that completed a reassignment installed its ISR and partition
    // epoch before the metadata brought the same state with its new replica set: not stale.
    boolean replicasCatchUp =
        st.leaderEpoch() == leaderEpoch
            && st.partitionEpoch() == partitionEpoch
            && !st.replicas().equals(replicas);
    if (!replicasCatchUp
        && (st.leaderEpoch() < leaderEpoch
            || (st.leaderEpoch() == leaderEpoch && st.partitionEpoch() <= partitionEpoch))) {
      return StateChange.STALE;
    }
    long nowMs = clock.monotonicMs();
    this.topicId = st.topicId();
    this.minInsyncReplicas = minIsr;
    this.replicas = st.replicas();
    boolean sameEpoch = st.leaderEpoch() == leaderEpoch;
    this.partitionEpoch = st.partitionEpoch();
    if (st.leader() == localBrokerId) {
      if (sameEpoch && role == ReplicaRole.LEADER) {
        leaderState.onReplicasChanged(st.replicas());
        if (leaderState.onIsrCommitted(new TreeSet<>(st.isr()), st.partitionEpoch())) {
          log.info("{}ISR is now {} (partition epoch {})", prefix(), st.isr(), st.partitionEpoch());
        }
        isrChange.committed(leaderState);
        maybeIncrementHighWatermark();
        completeReadyProduces();
        return StateChange.ISR_UPDATED;
      }
      return makeLeader(st, nowMs) ? StateChange.BECAME_LEADER : StateChange.UNCHANGED;
    }
    boolean changed = role != ReplicaRole.FOLLOWER || leaderId != st.leader() || !sameEpoch;
    this.leaderEpoch = st.leaderEpoch();
    this.leaderId = st.leader();
    this.leaderState = null;
    failWaitingProduces(
        ErrorCode.NOT_LEADER_OR_FOLLOWER,
        "this broker no longer leads "
            + tp
            + " (leader "
            + st.leader()
            + ", epoch "
            + st.leaderEpoch()
            + ")",
        hint());
    if (!changed) {
      return StateChange.UNCHANGED;
    }
    transitionTo(
        ReplicaRole.FOLLOWER,
        st.leader() < 0
            ? "no leader in epoch " + st.leaderEpoch()
            : "following broker " + st.leader() + " in epoch " + st.leaderEpoch());
    listener.onRoleChanged(this, role, leaderId, leaderEpoch);
    return StateChange.BECAME_FOLLOWER;
  }

  private boolean makeLeader(PartitionState st, long nowMs) {
    long leo = log0.logEndOffset();
    OptionalInt latest = log0.leaderEpochCache().latestEpoch();
    if (latest.isPresent() && latest.getAsInt() > st.leaderEpoch()) {
      goOffline(
          "the log holds epoch "
              + latest.getAsInt()
              + ", newer than the leader epoch "
              + st.leaderEpoch()
              + " it was asked to lead in");
      return false;
    }
    // The new epoch starts at the current log end offset: a follower whose log holds more in an
    // older epoch is told to truncate to here (diverging epoch), never past committed data,
    // because this replica was in the ISR and so has everything below the high watermark.
    log0.leaderEpochCache().assign(st.leaderEpoch(), leo);
    this.leaderEpoch = st.leaderEpoch();
    this.leaderId = localBrokerId;
    this.leaderState =
        new LeaderState(
            localBrokerId,
            st.replicas(),
            new TreeSet<>(st.isr()),
            st.leaderEpoch(),
            st.partitionEpoch(),
            leo,
            log0.highWatermark(),
            nowMs);
    isrChange.reset();
    transitionTo(
        ReplicaRole.LEADER,
        "leading in epoch " + st.leaderEpoch() + " from offset " + leo + " with ISR " + st.isr());
    maybeIncrementHighWatermark();
    listener.onRoleChanged(this, role, leaderId, leaderEpoch);
    return true;
  }

  /** The topic's min.insync.replicas changed (a config change without a partition change). */
  public void setMinInsyncReplicas(int minIsr) {
    this.minInsyncReplicas = minIsr;
  }

  /** This broker is no longer a replica (reassigned away or the topic deleted): stop everything. */
  public void stop(String reason) {
    failWaitingProduces(ErrorCode.NOT_LEADER_OR_FOLLOWER, reason, hint());
    leaderState = null;
    if (role != ReplicaRole.NONE) {
      transitionTo(ReplicaRole.NONE, reason);
    }
    leaderId = -1;
    listener.onRoleChanged(this, role, -1, leaderEpoch);
  }

  /**
   * Takes the replica offline (storage error or a broken invariant) until the broker restarts; the
   * replica manager also calls it for every replica of a failed data directory.
   */
  void goOffline(String reason) {
    if (role == ReplicaRole.OFFLINE) {
      return;
    }
    offlineReason = reason;
    log.error("{}replica goes OFFLINE: {}", prefix(), reason);
    failWaitingProduces(
        ErrorCode.STORAGE_ERROR,
        "replica of " + tp + " on broker " + localBrokerId + " is offline: " + reason,
        hint());
    leaderState = null;
    transitionTo(ReplicaRole.OFFLINE, reason);
    listener.onRoleChanged(this, role, leaderId, leaderEpoch);
  }

  /** An I/O error on this replica's files: offline, and the broker's data directory with it. */
  private void storageFailed(String what, RuntimeException e) {
    String reason = what + ": " + e.getMessage();
    goOffline(reason);
    listener.onStorageError(this, reason);
  }

  /** What an offline replica answers to produce, fetch and offset queries (Kafka's code 56). */
  private String offlineMessage() {
    return "the replica of " + tp + " on broker " + localBrokerId + " is offline: " + offlineReason;
  }

  // ---------------------------------------------------------------- owner thread: produce

  /**
   * Appends a produce request's batches for this partition. The future completes at once for
   * errors, acks=0 and acks=1, and for acks=-1 when the high watermark passes the last offset (or
   * the request times out, or this replica stops leading).
   */
  public CompletableFuture<ProduceResult> appendAsLeader(
      ByteBuffer records, int acks, int clientLeaderEpoch, long timeoutMs) {
    ProduceResult refused = checkProduce(acks, clientLeaderEpoch);
    if (refused != null) {
      return CompletableFuture.completedFuture(refused);
    }
    LogAppendInfo info;
    try {
      info = log0.appendAsLeader(records, leaderEpoch);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(appendError(e));
    }
    ProduceResult ok =
        new ProduceResult(
            ErrorCode.NONE,
            "",
            info.firstOffset(),
            info.logAppendTimeMs(),
            log0.logStartOffset(),
            null,
            info.duplicate() ? 0 : info.recordCount(),
            info.duplicate() ? 0 : info.validBytes());
    if (!info.duplicate() && info.recordCount() > 0) {
      listener.onAppended(tp, log0.logEndOffset());
      maybeIncrementHighWatermark();
    }
    if (acks != -1 || info.recordCount() == 0) {
      return CompletableFuture.completedFuture(ok);
    }
    long required = info.lastOffset() + 1;
    if (log0.highWatermark() >= required) {
      return CompletableFuture.completedFuture(ok);
    }
    return purgatory.await(required, clock.monotonicMs() + timeoutMs, ok);
  }

  private ProduceResult checkProduce(int acks, int clientLeaderEpoch) {
    if (acks != -1 && acks != 0 && acks != 1) {
      return ProduceResult.error(ErrorCode.INVALID_REQUEST, "acks must be -1, 0 or 1, not " + acks);
    }
    if (role == ReplicaRole.OFFLINE) {
      return ProduceResult.error(ErrorCode.STORAGE_ERROR, offlineMessage());
    }
    if (role != ReplicaRole.LEADER) {
      return ProduceResult.error(
          ErrorCode.NOT_LEADER_OR_FOLLOWER,
          "broker "
              + localBrokerId
              + " does not lead "
              + tp
              + "; leader is "
              + leaderId
              + " in epoch "
              + leaderEpoch,
          hint());
    }
    ProduceResult fenced = checkLeaderEpoch(clientLeaderEpoch);
    if (fenced != null) {
      return fenced;
    }
    if (acks == -1 && !leaderState.hasMinIsr(minInsyncReplicas)) {
      return ProduceResult.error(
          ErrorCode.NOT_ENOUGH_REPLICAS,
          "the ISR of "
              + tp
              + " is "
              + leaderState.isr()
              + ", fewer than min.insync.replicas="
              + minInsyncReplicas
              + "; nothing was written");
    }
    if (acks == -1 && purgatory.size() >= settings.maxPendingProducesPerPartition()) {
      return ProduceResult.error(
          ErrorCode.REQUEST_TIMED_OUT,
          purgatory.size()
              + " acks=all produces already wait for replication of "
              + tp
              + "; nothing was written");
    }
    return null;
  }

  private ProduceResult checkLeaderEpoch(int clientLeaderEpoch) {
    if (clientLeaderEpoch < 0 || clientLeaderEpoch == leaderEpoch) {
      return null;
    }
    if (clientLeaderEpoch < leaderEpoch) {
      return ProduceResult.error(
          ErrorCode.FENCED_LEADER_EPOCH,
          "leader epoch "
              + clientLeaderEpoch
              + " is older than the current "
              + leaderEpoch
              + " of "
              + tp,
          hint());
    }
    return ProduceResult.error(
        ErrorCode.UNKNOWN_LEADER_EPOCH,
        "leader epoch "
            + clientLeaderEpoch
            + " is newer than the "
            + leaderEpoch
            + " broker "
            + localBrokerId
            + " knows for "
            + tp);
  }

  private ProduceResult appendError(RuntimeException e) {
    ErrorCode code = ExceptionCodes.of(e);
    if (code == ErrorCode.STORAGE_ERROR) {
      storageFailed("append failed", e);
    } else if (code == ErrorCode.UNKNOWN_SERVER_ERROR) {
      log.error("{}append failed unexpectedly", prefix(), e);
      return ProduceResult.error(code, String.valueOf(e));
    }
    return ProduceResult.error(code, e.getMessage());
  }

  // ---------------------------------------------------------------- owner thread: high watermark

  private void maybeIncrementHighWatermark() {
    if (leaderState == null) {
      return;
    }
    long before = log0.highWatermark();
    long hw = leaderState.maybeAdvanceHighWatermark(log0.logEndOffset());
    if (hw < before) {
      // LeaderState starts from the log's high watermark and never lowers it; a smaller value
      // means the two disagree: stop rather than hand out a wrong committed offset.
      if (hw < log0.logStartOffset()) {
        return;
      }
      goOffline("invariant broken: high watermark would go back from " + before + " to " + hw);
      return;
    }
    if (hw > before) {
      log0.updateHighWatermark(hw);
      completeReadyProduces();
      listener.onHighWatermarkChanged(tp, hw);
    }
  }

  private void completeReadyProduces() {
    purgatory.completeUpTo(
        log0.highWatermark(),
        () -> leaderState == null ? 0 : leaderState.maximalIsr().size(),
        minInsyncReplicas);
  }

  /**
   * Answers every acks=all produce waiting for replication (the replica stops leading, or the
   * owner's tick finds the leadership lease lost; their batches stay in the log); returns how many.
   */
  int failWaitingProduces(ErrorCode code, String message, LeaderHintInfo hint) {
    return purgatory.failAll(code, message, hint);
  }

  /**
   * Periodic work: time out waiting produces; as leader, propose removing lagging or silent
   * followers from the ISR (one change in flight).
   */
  public void tick() {
    long nowMs = clock.monotonicMs();
    purgatory.expire(nowMs, () -> leaderState == null ? "" : leaderState.maximalIsr());
    if (role != ReplicaRole.LEADER) {
      return;
    }
    leaderState.observeTick(nowMs, settings.leaderStallMs());
    isrChange.resendDue(nowMs, leaderState).ifPresent(c -> listener.sendIsrChange(this, c));
    if (role == ReplicaRole.LEADER && isrChange.mayPropose(nowMs)) {
      long lag = settings.replicaLagTimeMaxMs();
      long silence = settings.replicaSilentTimeMaxMs();
      int min = minInsyncReplicas;
      leaderState
          .proposeShrink(nowMs, lag, silence, min)
          .ifPresent(isr -> proposeIsr(isr, leaderState.whyLeaving(isr, nowMs, lag, silence, min)));
    }
  }

  private void proposeIsr(Set<Integer> isr, String why) {
    leaderState.markPending(isr);
    log.info("{}proposing ISR {} (now {}): {}", prefix(), isr, leaderState.isr(), why);
    IsrChange change =
        new IsrChange(
            tp.topic(),
            topicId,
            tp.partition(),
            leaderEpoch,
            leaderState.partitionEpoch(),
            List.copyOf(isr));
    isrChange.sent(change);
    listener.sendIsrChange(this, change);
  }

  /**
   * The quorum's answer to an ISR change. Success installs the new ISR. A failure is judged by
   * {@link InFlightIsrChange#failed}: dropped when it proves the change was not committed, kept
   * pending (the high watermark counting the maximal ISR) when the change may have been committed.
   */
  public void onIsrChangeResult(
      IsrChange sent,
      ErrorCode error,
      String message,
      int leader,
      List<Integer> isr,
      int resultLeaderEpoch,
      int resultPartitionEpoch) {
    if (role != ReplicaRole.LEADER || sent.leaderEpoch() != leaderEpoch) {
      return; // an answer for an earlier leadership
    }
    isrChange.answered(sent);
    if (error == ErrorCode.NONE && leader == localBrokerId && resultLeaderEpoch == leaderEpoch) {
      if (leaderState.onIsrCommitted(new TreeSet<>(isr), resultPartitionEpoch)) {
        partitionEpoch = Math.max(partitionEpoch, resultPartitionEpoch);
        log.info("{}ISR is now {} (partition epoch {})", prefix(), isr, resultPartitionEpoch);
      }
      isrChange.committed(leaderState);
      maybeIncrementHighWatermark();
      completeReadyProduces();
      return;
    }
    switch (isrChange.failed(sent, error, leaderState, clock.monotonicMs())) {
      case REFUSED ->
          log.info("{}ISR change to {} refused: {} {}", prefix(), sent.newIsr(), error, message);
      case UNCONFIRMED ->
          log.info(
              "{}ISR change to {} not confirmed ({} {}); it stays pending until metadata or a"
                  + " resend settles it",
              prefix(),
              sent.newIsr(),
              error,
              message);
      case STALE -> {}
    }
  }

  // ---------------------------------------------------------------- owner thread: fetch (leader)

  /**
   * Serves one partition of a fetch, from a consumer or a follower. A follower's fetch (its epochs
   * checked) records its progress: the high watermark may advance and the follower may join the
   * ISR. The caller has checked the follower's broker epoch.
   */
  public PartitionFetchResult fetch(FetchParams p) {
    if (role == ReplicaRole.OFFLINE) {
      return PartitionFetchResult.error(ErrorCode.STORAGE_ERROR, offlineMessage(), null);
    }
    if (role != ReplicaRole.LEADER) {
      return PartitionFetchResult.error(
          ErrorCode.NOT_LEADER_OR_FOLLOWER,
          "broker "
              + localBrokerId
              + " does not lead "
              + tp
              + "; leader is "
              + leaderId
              + " in epoch "
              + leaderEpoch,
          hint());
    }
    ProduceResult fenced = checkLeaderEpoch(p.currentLeaderEpoch());
    if (fenced != null) {
      return PartitionFetchResult.error(fenced.error(), fenced.message(), fenced.hint());
    }
    if (p.isFollower() && !leaderState.isReplica(p.replicaId())) {
      return PartitionFetchResult.error(
          ErrorCode.NOT_LEADER_OR_FOLLOWER,
          "broker " + p.replicaId() + " is not a replica of " + tp + " (replicas " + replicas + ")",
          hint());
    }
    long leo = log0.logEndOffset();
    long lso = log0.logStartOffset();
    Optional<EpochEndOffset> diverging =
        Divergence.check(this::epochEndOffset, p.lastFetchedEpoch(), p.fetchOffset());
    if (diverging.isPresent()) {
      return new PartitionFetchResult(
          ErrorCode.NONE, "", log0.highWatermark(), lso, leo, diverging.get(), null, null);
    }
    if (p.fetchOffset() > leo || p.fetchOffset() < lso) {
      return new PartitionFetchResult(
          ErrorCode.OFFSET_OUT_OF_RANGE,
          "offset " + p.fetchOffset() + " is outside [" + lso + ", " + leo + "] of " + tp,
          log0.highWatermark(),
          lso,
          leo,
          null,
          null,
          null);
    }
    if (p.isFollower()) {
      onFollowerFetch(p.replicaId(), p.fetchOffset(), leo);
    }
    long hw = log0.highWatermark();
    long bound = p.isFollower() ? Long.MAX_VALUE : hw;
    LogReadResult r;
    try {
      r = log0.read(p.fetchOffset(), p.maxBytes(), bound, p.minOneBatch());
    } catch (LogStorageException e) {
      storageFailed("read failed", e);
      return PartitionFetchResult.error(ErrorCode.STORAGE_ERROR, offlineMessage(), null);
    } catch (OffsetOutOfRangeException e) {
      // Retention moved the log start between the check and the read.
      return new PartitionFetchResult(
          ExceptionCodes.of(e),
          e.getMessage(),
          hw,
          log0.logStartOffset(),
          log0.logEndOffset(),
          null,
          null,
          null);
    }
    return new PartitionFetchResult(
        ErrorCode.NONE,
        "",
        hw,
        r.logStartOffset(),
        r.logEndOffset(),
        null,
        r.slice().isEmpty() ? null : r.slice(),
        null);
  }

  private void onFollowerFetch(int followerId, long fetchOffset, long leo) {
    long nowMs = clock.monotonicMs();
    leaderState.onFollowerFetch(followerId, -1L, fetchOffset, leo, nowMs);
    maybeIncrementHighWatermark();
    if (role == ReplicaRole.LEADER && isrChange.mayPropose(nowMs)) {
      leaderState
          .proposeExpand(followerId)
          .ifPresent(
              isr ->
                  proposeIsr(
                      isr, "follower " + followerId + " caught up to offset " + fetchOffset));
    }
  }

  /** Epoch history of the local log as the divergence logic reads it. */
  EpochEndOffset epochEndOffset(int epoch) {
    LeaderEpochCache.EpochEndOffset e =
        log0.leaderEpochCache().endOffsetFor(epoch, log0.logEndOffset());
    return e.epoch() < 0 ? EpochEndOffset.UNDEFINED : new EpochEndOffset(e.epoch(), e.endOffset());
  }

  // ---------------------------------------------------------------- owner thread: follower

  /**
   * Handles the leader's answer for this partition to a fetch sent with {@code sent}. Answers to an
   * older leadership, or to a fetch from an offset the log has since left, are dropped. {@code
   * records} holds whole batches (may be empty).
   */
  public FollowerOutcome processFetchResponse(
      FollowerFetchState sent,
      ErrorCode error,
      String message,
      long leaderHw,
      long leaderLogStart,
      long leaderLeo,
      EpochEndOffset diverging,
      ByteBuffer records) {
    if (role != ReplicaRole.FOLLOWER
        || leaderEpoch != sent.leaderEpoch()
        || leaderId != sent.leaderId()
        || log0.logEndOffset() != sent.fetchOffset()
        || latestEpoch() != sent.lastFetchedEpoch()) {
      // The answer was computed against a log state this replica no longer has (or the fetch
      // state was read while the log changed): applying it could truncate too much.
      return FollowerOutcome.STALE;
    }
    try {
      switch (error) {
        case NONE:
          return follower.onData(leaderId, leaderHw, leaderLogStart, diverging, records);
        case OFFSET_OUT_OF_RANGE:
          return follower.onOutOfRange(leaderId, leaderLogStart, leaderLeo);
        default:
          log.debug("{}fetch from {} answered {}: {}", prefix(), leaderId, error, message);
          return FollowerOutcome.RETRY_LATER;
      }
    } catch (LogStorageException e) {
      storageFailed("follower append or truncation failed", e);
      return FollowerOutcome.OFFLINE;
    } catch (RuntimeException e) {
      // Not an expected answer of the log (those are handled above): a bug or a closed log.
      // Going on could loop on the same failure or corrupt the replica; stop it instead.
      log.error("{}unexpected failure applying a fetch answer", prefix(), e);
      goOffline("unexpected failure applying a fetch answer: " + e);
      return FollowerOutcome.OFFLINE;
    }
  }

  private int latestEpoch() {
    OptionalInt e = log0.leaderEpochCache().latestEpoch();
    return e.isPresent() ? e.getAsInt() : -1;
  }

  // ---------------------------------------------------------------- owner thread: offsets

  /**
   * ListOffsets: -2 earliest (log start), -1 latest (the high watermark for consumers, the log end
   * for replicas), else the first offset with a timestamp at or after, found only below the high
   * watermark for consumers ({@link OffsetLookup}).
   */
  public ListOffsetResult listOffset(long timestamp, int currentLeaderEpoch, boolean consumer) {
    ListOffsetResult refused = refuseOffsetQuery(currentLeaderEpoch);
    return refused != null ? refused : OffsetLookup.lookup(log0, timestamp, consumer);
  }

  /** Why this replica cannot answer an offset query (not the leader, or fenced), else null. */
  private ListOffsetResult refuseOffsetQuery(int currentLeaderEpoch) {
    if (role == ReplicaRole.OFFLINE) {
      return new ListOffsetResult(ErrorCode.STORAGE_ERROR, offlineMessage(), -1, -1, -1, null);
    }
    if (role != ReplicaRole.LEADER) {
      return new ListOffsetResult(
          ErrorCode.NOT_LEADER_OR_FOLLOWER,
          "broker " + localBrokerId + " does not lead " + tp,
          -1,
          -1,
          -1,
          hint());
    }
    ProduceResult fenced = checkLeaderEpoch(currentLeaderEpoch);
    if (fenced != null) {
      return new ListOffsetResult(fenced.error(), fenced.message(), -1, -1, -1, fenced.hint());
    }
    return null;
  }

  /** OffsetForLeaderEpoch: the largest epoch at or below {@code epoch} and where it ends. */
  public ListOffsetResult endOffsetForEpoch(int currentLeaderEpoch, int epoch) {
    ListOffsetResult refused = refuseOffsetQuery(currentLeaderEpoch);
    if (refused != null) {
      return refused;
    }
    EpochEndOffset e = epochEndOffset(epoch);
    return new ListOffsetResult(ErrorCode.NONE, "", -1, e.endOffset(), e.epoch(), null);
  }

  @Override
  public String toString() {
    return "Partition("
        + tp
        + " on "
        + localBrokerId
        + ", "
        + role
        + ", leader="
        + leaderId
        + ", epoch="
        + leaderEpoch
        + ", "
        + log0
        + ")";
  }
}
