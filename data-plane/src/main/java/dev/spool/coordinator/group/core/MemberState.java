package dev.spool.coordinator.group.core;

/**
 * Where a member is in its reconciliation (KIP-848).
 *
 * <ul>
 *   <li>STABLE: it owns its assignment at its epoch; it moves on when the target epoch changes.
 *   <li>UNREVOKED_PARTITIONS: it must revoke {@code pendingRevocation} first; its epoch stays until
 *       a heartbeat shows it no longer owns them (or its rebalance timeout fences it).
 *   <li>UNRELEASED_PARTITIONS: it is at the target epoch but some of its target partitions are
 *       still owned by others that have not revoked them yet; they are added once released.
 * </ul>
 *
 * The ordinal is stored in CurrentAssignmentValue.state: never reorder.
 */
public enum MemberState {
  STABLE("Stable"),
  UNREVOKED_PARTITIONS("UnrevokedPartitions"),
  UNRELEASED_PARTITIONS("UnreleasedPartitions");

  private final String displayName;

  MemberState(String displayName) {
    this.displayName = displayName;
  }

  public String displayName() {
    return displayName;
  }

  public static MemberState fromOrdinal(int ordinal) {
    MemberState[] all = values();
    if (ordinal < 0 || ordinal >= all.length) {
      throw new IllegalArgumentException("unknown member state " + ordinal);
    }
    return all[ordinal];
  }
}
