package dev.spool.quorum.lifecycle;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The broker's lifecycle towards the metadata quorum. Transitions:
 *
 * <pre>
 * STARTING -> REGISTERING                 start()
 * REGISTERING -> RECOVERING               registered: fenced until it has replayed up to its epoch
 * RECOVERING -> RUNNING                   the controller unfenced it
 * RUNNING -> RECOVERING                   fenced by the controller (e.g. a missed session)
 * RECOVERING/RUNNING -> REGISTERING       the quorum no longer knows this registration
 * REGISTERING/RECOVERING/RUNNING -> PENDING_CONTROLLED_SHUTDOWN   controlledShutdown()
 * any but SHUTTING_DOWN -> SHUTTING_DOWN  shutdown handed over, timed out, or close()
 * </pre>
 */
public enum BrokerState {
  STARTING,
  REGISTERING,
  RECOVERING,
  RUNNING,
  PENDING_CONTROLLED_SHUTDOWN,
  SHUTTING_DOWN;

  private static final Map<BrokerState, Set<BrokerState>> NEXT =
      Map.of(
          STARTING, EnumSet.of(REGISTERING, SHUTTING_DOWN),
          REGISTERING, EnumSet.of(RECOVERING, PENDING_CONTROLLED_SHUTDOWN, SHUTTING_DOWN),
          RECOVERING, EnumSet.of(RUNNING, REGISTERING, PENDING_CONTROLLED_SHUTDOWN, SHUTTING_DOWN),
          RUNNING, EnumSet.of(RECOVERING, REGISTERING, PENDING_CONTROLLED_SHUTDOWN, SHUTTING_DOWN),
          PENDING_CONTROLLED_SHUTDOWN, EnumSet.of(SHUTTING_DOWN),
          SHUTTING_DOWN, EnumSet.noneOf(BrokerState.class));

  public boolean canMoveTo(BrokerState next) {
    return NEXT.get(this).contains(next);
  }
}
