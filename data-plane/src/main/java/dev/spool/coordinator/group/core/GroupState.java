package dev.spool.coordinator.group.core;

/**
 * A consumer group's state, derived from its members and epochs (never stored):
 *
 * <ul>
 *   <li>EMPTY: no members (it may still have committed offsets);
 *   <li>ASSIGNING: the group epoch moved past the target assignment's epoch (a member joined, left
 *       or changed its subscription, or a subscribed topic changed) and the next heartbeat computes
 *       a new target;
 *   <li>RECONCILING: some member has not reached the target yet;
 *   <li>STABLE: every member owns its target at the target epoch.
 * </ul>
 */
public enum GroupState {
  EMPTY("Empty"),
  ASSIGNING("Assigning"),
  RECONCILING("Reconciling"),
  STABLE("Stable");

  private final String displayName;

  GroupState(String displayName) {
    this.displayName = displayName;
  }

  public String displayName() {
    return displayName;
  }
}
