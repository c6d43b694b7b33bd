package dev.spool.broker.replication;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.function.BooleanSupplier;

/**
 * Produce-side enforcement of the broker's leadership lease (the broker lifecycle's {@code
 * LeadershipLease}): while the lease is not held, a produce to a partition this broker leads is
 * refused with NOT_LEADER_OR_FOLLOWER before anything is appended ({@link #refusal}), and each
 * partition worker's tick answers the acks=all produces already waiting in its leaders' purgatories
 * NOT_LEADER_OR_FOLLOWER ({@link #lostWhileWaiting}, through {@code Partition.failWaitingProduces},
 * as a leadership loss does), so the clients ask for metadata and go to the leader the controller
 * elects meanwhile instead of waiting out their request timeout. A waiting produce's batch stays in
 * the log: it may still be committed (its followers may still fetch) or be truncated by the next
 * leader, which is what a producer is told by that error code after an append (its idempotent retry
 * settles it).
 *
 * <p>Threads: any; immutable apart from the lease it reads.
 */
public final class LeaseGuard {
  /** A guard whose lease is always held (tests, the simulation, brokers without a lifecycle). */
  public static LeaseGuard alwaysHeld(int brokerId) {
    return new LeaseGuard(brokerId, () -> true);
  }

  private final int brokerId;
  private final BooleanSupplier lease;

  public LeaseGuard(int brokerId, BooleanSupplier lease) {
    this.brokerId = brokerId;
    this.lease = lease;
  }

  /** Whether this broker may act as a partition leader now. */
  public boolean holds() {
    return lease.getAsBoolean();
  }

  /** The answer to a produce while the lease is not held: nothing was appended. */
  public ProduceResult refusal(TopicPartition tp) {
    return ProduceResult.error(
        ErrorCode.NOT_LEADER_OR_FOLLOWER,
        "broker "
            + brokerId
            + " has not heard from the active controller for its session timeout, so it no longer"
            + " acts as the leader of "
            + tp
            + " (the controller fences it and elects another leader); nothing was written",
        LeaderHintInfo.UNKNOWN);
  }

  /** Why an acks=all produce that waited for replication is answered when the lease is lost. */
  public String lostWhileWaiting(TopicPartition tp) {
    return "broker "
        + brokerId
        + " lost contact with the active controller while this produce to "
        + tp
        + " waited for replication; it no longer acts as the leader (the batch may have been"
        + " appended)";
  }
}
