package dev.spool.quorum;

import dev.spool.common.Clock;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.ratis.RatisQuorumServer;
import java.io.IOException;
import java.util.Map;

/**
 * The controller role of a node: one voting member of the metadata quorum (Ratis inside). The Raft
 * leader, once it has committed an entry of its term, is the active controller: it decides
 * requests, fences brokers whose sessions expire, repairs partitions and answers heartbeats.
 *
 * <p>Lifecycle: {@link #create}, {@link #start} once, {@link #close} once (graceful: a snapshot is
 * taken on stop). A restart in the same process builds a new instance.
 */
public interface QuorumServer extends AutoCloseable {

  static QuorumServer create(QuorumSettings settings, Clock clock) {
    return new RatisQuorumServer(settings, clock);
  }

  /**
   * Opens (or recovers) the storage, loads the latest snapshot, replays the log and joins.
   *
   * @throws NotAQuorumMemberException on the first start of an original voter that a running member
   *     says was removed from the quorum
   */
  void start() throws IOException;

  int nodeId();

  /** What this controller is in the quorum's current configuration. */
  enum Membership {
    /** A voting member. */
    VOTER,
    /** A non-voting member catching up before it becomes a voter (spool quorum add-voter). */
    LISTENER,
    /** Not a member: a new controller not added yet, or one removed (spool quorum remove-voter). */
    NONE
  }

  /**
   * This controller's place in the quorum's current configuration
   * (docs/ratis.md#dynamic-membership): only a voter takes part in elections and commits.
   */
  Membership membership();

  /**
   * Why this controller stopped after its metadata log failed (an I/O error in the quorum
   * directory; docs/architecture.md#storage-errors), or empty while it works.
   */
  String metadataLogFailure();

  /** True while this node is the ready Raft leader (and so runs the controller duties). */
  boolean isActiveController();

  /** The node id of the Raft leader as this node knows it, or -1. */
  int activeControllerId();

  /** The current Raft term as this node knows it. */
  long term();

  /** The Raft index of the last entry applied to this controller's image. */
  long appliedIndex();

  /** The Raft commit index as this node knows it (the metadata log's committed end). */
  long commitIndex();

  /** How many times this node has seen the Raft leader change since it started. */
  long leaderChanges();

  /** Milliseconds since this node last saw the Raft leader change (or since it started). */
  long msSinceLeaderChange();

  /**
   * On the active controller: milliseconds since each registered broker's last heartbeat reached
   * it, by broker id (a broker not heard from since it became active counts from then). Empty on
   * every other node.
   */
  Map<Integer, Long> brokerHeartbeatAgesMs();

  /** This controller's metadata image (as of {@link #appliedIndex()}). */
  MetadataImage image();

  /** The index of the snapshot loaded at start or installed from the leader; -1 if none. */
  long loadedSnapshotIndex();

  /** Takes a snapshot now (tests, operators); returns its index. */
  long takeSnapshot() throws IOException;

  /**
   * If this node is the active controller, hands leadership to the most caught-up other voter and
   * waits up to {@code timeoutMs} for it to take over; a planned stop (rolling restart) then costs
   * no election timeout. Call before {@link #close()}.
   *
   * @return true when another voter leads now (or this node did not lead)
   */
  boolean transferLeadership(long timeoutMs);

  /**
   * Graceful stop: takes a snapshot, closes the Raft server. Does not hand over leadership (see
   * {@link #transferLeadership}).
   */
  @Override
  void close() throws IOException;
}
