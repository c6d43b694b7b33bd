package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;

/**
 * A named property of the replicated cluster that a {@link ReplicationSimulation} checks after
 * every step (the one in {@link ReplicationSimulation#FINAL_CHECKS} once, after the faults are
 * healed). A check that does not hold fails with an {@link AssertionError} carrying the invariant's
 * name, the step and the seed ({@link ReplicationSimulation#check}). An invariant may remember what
 * it saw in earlier steps, so each run gets its own instances.
 *
 * <p>The invariants are those of the replication package (see its package-info). Two more are
 * checked where an answer arrives rather than after a step: see {@link SimClients}.
 *
 * <p>Threads: the simulation's single thread.
 */
interface Invariant {
  /** The name a violation carries: the class's simple name. */
  default String name() {
    return getClass().getSimpleName();
  }

  /** Throws {@link AssertionError} when the invariant does not hold in {@code sim} now. */
  void check(ReplicationSimulation sim);

  /** An invariant of one leader: checked for each partition on every live broker leading it. */
  interface PerLeader extends Invariant {
    /** Checks {@code leader}, which leads {@code tp} with replica {@code p}. */
    void check(ReplicationSimulation sim, TopicPartition tp, SimBroker leader, Partition p);

    @Override
    default void check(ReplicationSimulation sim) {
      for (TopicPartition tp : sim.tps) {
        for (SimBroker l : sim.leadersOf(tp)) {
          check(sim, tp, l, l.partitions.get(tp));
        }
      }
    }
  }
}
