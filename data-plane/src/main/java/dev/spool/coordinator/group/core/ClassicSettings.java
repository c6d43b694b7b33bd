package dev.spool.coordinator.group.core;

/**
 * The settings of classic (JoinGroup/SyncGroup) groups, from the broker's {@code group.*} keys with
 * Kafka's names and defaults. Immutable.
 *
 * @param initialRebalanceDelayMs how long the first rebalance of an empty group waits for more
 *     members (each new one extends it, up to the rebalance timeout)
 * @param minSessionTimeoutMs the smallest session timeout a member may ask for
 * @param maxSessionTimeoutMs the largest
 * @param maxRecordBytes the largest group record the offsets partition takes (members' metadata and
 *     assignments together); a SyncGroup whose assignment makes it larger fails
 */
public record ClassicSettings(
    int initialRebalanceDelayMs,
    int minSessionTimeoutMs,
    int maxSessionTimeoutMs,
    int maxRecordBytes) {

  /** How long a new member's join may wait before its session counts (Kafka's fixed 5 minutes). */
  public static final int NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000;
}
