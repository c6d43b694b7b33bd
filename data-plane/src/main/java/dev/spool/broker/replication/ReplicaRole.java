package dev.spool.broker.replication;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The role of one local partition replica.
 *
 * <pre>
 * NONE     -> LEADER | FOLLOWER | OFFLINE     first partition state from metadata; open failure
 * LEADER   -> LEADER (new epoch) | FOLLOWER | OFFLINE | NONE (removed)
 * FOLLOWER -> FOLLOWER (new leader/epoch) | LEADER | OFFLINE | NONE (removed)
 * OFFLINE  -> NONE (removed)                  a storage error keeps the replica offline until the
 *                                             broker restarts (its log is recovered then)
 * </pre>
 */
public enum ReplicaRole {
  NONE,
  LEADER,
  FOLLOWER,
  OFFLINE;

  private static final Map<ReplicaRole, Set<ReplicaRole>> NEXT =
      Map.of(
          NONE, EnumSet.of(LEADER, FOLLOWER, OFFLINE, NONE),
          LEADER, EnumSet.of(LEADER, FOLLOWER, OFFLINE, NONE),
          FOLLOWER, EnumSet.of(FOLLOWER, LEADER, OFFLINE, NONE),
          OFFLINE, EnumSet.of(NONE));

  public boolean canMoveTo(ReplicaRole next) {
    return NEXT.get(this).contains(next);
  }
}
