package dev.spool.broker.replication;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A partition leader's view of its followers: their log end offsets, whether they are in sync, the
 * ISR (committed and pending) and the high watermark. Pure: no threads, no I/O, time passed in.
 * Owned by the partition's owner thread.
 *
 * <p>Rules (docs/architecture.md#high-watermark and docs/architecture.md#isr-changes, as Kafka's
 * {@code Partition}):
 *
 * <ul>
 *   <li>High watermark = min log end offset over the <em>maximal</em> ISR (the leader included).
 *       While a shrink is pending at the quorum the old, larger ISR counts; an expansion counts at
 *       once. A follower whose log end offset is unknown in this epoch (it has not fetched since
 *       this broker became leader) holds the high watermark where it is. The high watermark never
 *       decreases.
 *   <li>A follower is caught up at time t when a fetch at t reached the leader's log end offset, or
 *       reached the leader's log end offset as of its previous fetch (then it was caught up at that
 *       previous fetch). A member not caught up for {@code replica.lag.time.max.ms} is proposed for
 *       removal.
 *   <li>A member from which no fetch at all arrived for {@code replica.silent.time.max.ms} (a
 *       shorter time: a live follower fetches at least every {@code replica.fetch.wait.max.ms}) is
 *       proposed for removal too, but only when the members left, the leader included, are still at
 *       least {@code min.insync.replicas} and include a follower: a smaller ISR could not take
 *       acks=all writes anyway, and when every follower is silent the leader is more likely the one
 *       cut off; an ISR of the leader alone would leave the controller no other member to elect.
 *       Silence counts from the later of the member's last fetch, the start of this leadership and
 *       the end of this leader's own last stall ({@link #observeTick}): fetches that arrived while
 *       the leader stood still are still queued, not missing.
 *   <li>A replica outside the ISR is proposed for addition once its log end offset reaches both the
 *       high watermark and the start offset of the current leader epoch.
 *   <li>At most one ISR change is in flight; it ends when the quorum commits it (or a newer
 *       partition state arrives) or fails.
 * </ul>
 */
public final class LeaderState {

  /** What the leader knows about one follower in the current leader epoch. */
  static final class FollowerProgress {
    long logEndOffset = -1L;
    long lastCaughtUpTimeMs;
    long lastFetchTimeMs = -1L;
    long lastFetchLeaderLogEndOffset = -1L;
    long brokerEpoch = -1L;
  }

  private final int localBrokerId;
  private final int leaderEpoch;
  private final long leaderEpochStartOffset;
  private List<Integer> replicas;
  private final Map<Integer, FollowerProgress> followers = new HashMap<>();
  private Set<Integer> isr;
  private int partitionEpoch;
  private Set<Integer> pendingIsr;
  private long highWatermark;
  private long silenceFloorMs;
  private long lastTickMs = -1L;

  public LeaderState(
      int localBrokerId,
      List<Integer> replicas,
      Set<Integer> isr,
      int leaderEpoch,
      int partitionEpoch,
      long leaderEpochStartOffset,
      long highWatermark,
      long nowMs) {
    if (!replicas.contains(localBrokerId) || !isr.contains(localBrokerId)) {
      throw new IllegalArgumentException(
          "leader "
              + localBrokerId
              + " must be a replica and in the ISR: replicas="
              + replicas
              + " isr="
              + isr);
    }
    this.localBrokerId = localBrokerId;
    this.replicas = List.copyOf(replicas);
    this.isr = Collections.unmodifiableSet(new TreeSet<>(isr));
    this.leaderEpoch = leaderEpoch;
    this.partitionEpoch = partitionEpoch;
    this.leaderEpochStartOffset = leaderEpochStartOffset;
    this.highWatermark = highWatermark;
    this.silenceFloorMs = nowMs;
    for (int r : replicas) {
      if (r != localBrokerId) {
        FollowerProgress p = new FollowerProgress();
        // ISR members get a full lag window to make their first fetch to the new leader.
        p.lastCaughtUpTimeMs = isr.contains(r) ? nowMs : 0L;
        followers.put(r, p);
      }
    }
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

  /** The ISR the quorum has committed. */
  public Set<Integer> isr() {
    return isr;
  }

  /** The ISR the high watermark is computed over: committed ∪ pending. */
  public Set<Integer> maximalIsr() {
    if (pendingIsr == null) {
      return isr;
    }
    Set<Integer> union = new TreeSet<>(isr);
    union.addAll(pendingIsr);
    return union;
  }

  public Optional<Set<Integer>> pendingIsr() {
    return Optional.ofNullable(pendingIsr);
  }

  public long highWatermark() {
    return highWatermark;
  }

  public boolean isReplica(int brokerId) {
    return followers.containsKey(brokerId);
  }

  /**
   * Records a follower fetch whose epoch check passed: the follower's log matches ours below {@code
   * fetchOffset}. Returns the (possibly advanced) high watermark.
   */
  public long onFollowerFetch(
      int followerId,
      long followerBrokerEpoch,
      long fetchOffset,
      long leaderLogEndOffset,
      long nowMs) {
    FollowerProgress p = followers.get(followerId);
    if (p == null) {
      throw new IllegalArgumentException("broker " + followerId + " is not a replica: " + replicas);
    }
    if (fetchOffset >= leaderLogEndOffset) {
      p.lastCaughtUpTimeMs = Math.max(p.lastCaughtUpTimeMs, nowMs);
    } else if (p.lastFetchLeaderLogEndOffset >= 0 && fetchOffset >= p.lastFetchLeaderLogEndOffset) {
      p.lastCaughtUpTimeMs = Math.max(p.lastCaughtUpTimeMs, p.lastFetchTimeMs);
    }
    p.logEndOffset = fetchOffset;
    p.lastFetchLeaderLogEndOffset = leaderLogEndOffset;
    p.lastFetchTimeMs = nowMs;
    p.brokerEpoch = followerBrokerEpoch;
    return maybeAdvanceHighWatermark(leaderLogEndOffset);
  }

  /**
   * The quorum changed the replica set in this leader epoch (a reassignment added or dropped
   * replicas, docs/architecture.md#replica-reassignment): a new replica starts unknown and out of
   * sync, a dropped one is forgotten. The leader stays a replica (a reassignment that drops the
   * leader moves leadership first).
   */
  public void onReplicasChanged(List<Integer> newReplicas) {
    if (newReplicas.equals(replicas)) {
      return;
    }
    if (!newReplicas.contains(localBrokerId)) {
      throw new IllegalArgumentException(
          "leader " + localBrokerId + " is not among the new replicas " + newReplicas);
    }
    replicas = List.copyOf(newReplicas);
    followers.keySet().retainAll(newReplicas);
    for (int r : newReplicas) {
      if (r != localBrokerId) {
        followers.computeIfAbsent(r, id -> new FollowerProgress());
      }
    }
  }

  /** Recomputes the high watermark after the leader's own log end offset moved. */
  public long maybeAdvanceHighWatermark(long leaderLogEndOffset) {
    long candidate = leaderLogEndOffset;
    for (int member : maximalIsr()) {
      if (member == localBrokerId) {
        continue;
      }
      FollowerProgress p = followers.get(member);
      if (p == null || p.logEndOffset < 0) {
        return highWatermark;
      }
      candidate = Math.min(candidate, p.logEndOffset);
    }
    if (candidate > highWatermark) {
      highWatermark = candidate;
    }
    return highWatermark;
  }

  /** ISR members that have not been caught up for longer than {@code lagMaxMs}. */
  public Set<Integer> outOfSyncReplicas(long nowMs, long lagMaxMs) {
    Set<Integer> out = new TreeSet<>();
    for (int member : isr) {
      if (member == localBrokerId) {
        continue;
      }
      FollowerProgress p = followers.get(member);
      if (p == null || nowMs - p.lastCaughtUpTimeMs > lagMaxMs) {
        out.add(member);
      }
    }
    return out;
  }

  /**
   * ISR members from which no fetch arrived for longer than {@code silenceMaxMs}, counted from the
   * later of their last fetch, the start of this leadership and the end of this leader's last
   * stall.
   */
  public Set<Integer> silentReplicas(long nowMs, long silenceMaxMs) {
    Set<Integer> out = new TreeSet<>();
    for (int member : isr) {
      if (member == localBrokerId) {
        continue;
      }
      FollowerProgress p = followers.get(member);
      long heardMs = Math.max(silenceFloorMs, p == null ? -1L : p.lastFetchTimeMs);
      if (nowMs - heardMs > silenceMaxMs) {
        out.add(member);
      }
    }
    return out;
  }

  /**
   * The leader's periodic check ran at {@code nowMs}. A gap since the previous one longer than
   * {@code stallMs} means this leader itself stood still (a GC pause, SIGSTOP, a worker that fell
   * behind): the fetches of that time may still be queued behind it, so the followers' silence
   * counts again from now.
   */
  public void observeTick(long nowMs, long stallMs) {
    if (lastTickMs >= 0 && nowMs - lastTickMs > stallMs) {
      silenceFloorMs = Math.max(silenceFloorMs, nowMs);
    }
    lastTickMs = Math.max(lastTickMs, nowMs);
  }

  /** The ISR to propose without the lagging members, when no change is in flight. */
  public Optional<Set<Integer>> proposeShrink(long nowMs, long lagMaxMs) {
    return proposeShrink(nowMs, lagMaxMs, Long.MAX_VALUE, Integer.MAX_VALUE);
  }

  /**
   * The ISR to propose without the lagging members and, when at least {@code minInsyncReplicas}
   * members (the leader included) and at least one follower stay, without the silent ones too;
   * empty when a change is in flight or nobody is to leave.
   */
  public Optional<Set<Integer>> proposeShrink(
      long nowMs, long lagMaxMs, long silenceMaxMs, int minInsyncReplicas) {
    if (pendingIsr != null) {
      return Optional.empty();
    }
    Set<Integer> leaving = new TreeSet<>(outOfSyncReplicas(nowMs, lagMaxMs));
    Set<Integer> silent =
        silenceMaxMs == Long.MAX_VALUE ? Set.of() : silentReplicas(nowMs, silenceMaxMs);
    Set<Integer> silentOnly = new TreeSet<>(silent);
    silentOnly.removeAll(leaving);
    // At least one follower must stay: when every follower is silent, the leader is the one cut
    // off, and the controller moves the leadership to them (they report it unreachable).
    if (!silentOnly.isEmpty()
        && isr.size() - leaving.size() - silentOnly.size() >= Math.max(minInsyncReplicas, 2)) {
      leaving.addAll(silentOnly);
    }
    if (leaving.isEmpty()) {
      return Optional.empty();
    }
    Set<Integer> proposed = new TreeSet<>(isr);
    proposed.removeAll(leaving);
    return Optional.of(Collections.unmodifiableSet(proposed));
  }

  /**
   * Why the members missing from {@code proposed} leave (for the log line of the proposal): lag,
   * silence, or both.
   */
  public String whyLeaving(
      Set<Integer> proposed, long nowMs, long lagMaxMs, long silenceMaxMs, int minInsyncReplicas) {
    Set<Integer> lagging = new TreeSet<>();
    Set<Integer> silent = new TreeSet<>();
    Set<Integer> late = outOfSyncReplicas(nowMs, lagMaxMs);
    for (int member : isr) {
      if (!proposed.contains(member)) {
        (late.contains(member) ? lagging : silent).add(member);
      }
    }
    StringBuilder why = new StringBuilder();
    if (!lagging.isEmpty()) {
      why.append("followers ")
          .append(lagging)
          .append(" lag more than replica.lag.time.max.ms=")
          .append(lagMaxMs);
    }
    if (!silent.isEmpty()) {
      why.append(why.length() == 0 ? "" : "; ")
          .append("followers ")
          .append(silent)
          .append(" sent no fetch for more than replica.silent.time.max.ms=")
          .append(silenceMaxMs)
          .append(" and min.insync.replicas=")
          .append(minInsyncReplicas)
          .append(" stay without them");
    }
    return why.toString();
  }

  /**
   * The ISR to propose with {@code followerId} added, when it has caught up and nothing is in
   * flight.
   */
  public Optional<Set<Integer>> proposeExpand(int followerId) {
    if (pendingIsr != null || isr.contains(followerId)) {
      return Optional.empty();
    }
    FollowerProgress p = followers.get(followerId);
    if (p == null || p.logEndOffset < 0) {
      return Optional.empty();
    }
    if (p.logEndOffset >= highWatermark && p.logEndOffset >= leaderEpochStartOffset) {
      Set<Integer> proposed = new LinkedHashSet<>(isr);
      proposed.add(followerId);
      return Optional.of(Collections.unmodifiableSet(new TreeSet<>(proposed)));
    }
    return Optional.empty();
  }

  /** An ISR change was sent to the quorum; the high watermark now counts the union. */
  public void markPending(Set<Integer> proposed) {
    if (pendingIsr != null) {
      throw new IllegalStateException("an ISR change is already in flight: " + pendingIsr);
    }
    if (!proposed.contains(localBrokerId)) {
      throw new IllegalArgumentException("the leader must stay in the ISR: " + proposed);
    }
    pendingIsr = Collections.unmodifiableSet(new TreeSet<>(proposed));
  }

  /**
   * The quorum committed an ISR (our change, or any newer partition state in this leader epoch).
   * Ignored when {@code newPartitionEpoch} is not newer than what we have.
   */
  public boolean onIsrCommitted(Set<Integer> newIsr, int newPartitionEpoch) {
    if (newPartitionEpoch <= partitionEpoch) {
      return false;
    }
    isr = Collections.unmodifiableSet(new TreeSet<>(newIsr));
    partitionEpoch = newPartitionEpoch;
    pendingIsr = null;
    return true;
  }

  /** The in-flight ISR change was refused or timed out; a new one may be proposed later. */
  public void onIsrChangeFailed() {
    pendingIsr = null;
  }

  /** acks=all may append only with at least {@code minInsyncReplicas} in the committed ISR. */
  public boolean hasMinIsr(int minInsyncReplicas) {
    return isr.size() >= minInsyncReplicas;
  }
}
