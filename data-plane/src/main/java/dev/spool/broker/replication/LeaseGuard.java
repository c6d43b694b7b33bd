package dev.spool.broker.replication;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Produce-side enforcement of the broker's leadership lease (the broker lifecycle's {@code
 * LeadershipLease}): while the lease is not held, a produce to a partition this broker leads is
 * refused with NOT_LEADER_OR_FOLLOWER before anything is appended, and acks=all produces already
 * waiting for replication are answered NOT_LEADER_OR_FOLLOWER at the next check, so the clients ask
 * for metadata and go to the leader the controller elects meanwhile instead of waiting out their
 * request timeout. A waiting produce's batch stays in the log: it may still be committed (its
 * followers may still fetch) or be truncated by the next leader, which is what a producer is told
 * by that error code after an append (its idempotent retry settles it).
 *
 * <p>Threads: {@link #holds} and {@link #refusal} on any thread; {@link #track} on the thread that
 * creates a produce's future; {@link #check} on one partition worker's tick. The set of waiting
 * produces is concurrent.
 */
public final class LeaseGuard {
  /** A guard whose lease is always held (tests, the simulation, brokers without a lifecycle). */
  public static LeaseGuard alwaysHeld(int brokerId) {
    return new LeaseGuard(brokerId, () -> true);
  }

  private final int brokerId;
  private final BooleanSupplier lease;
  // acks=all answers still waiting for replication, with their partition
  private final Map<CompletableFuture<ProduceResult>, TopicPartition> waiting =
      new ConcurrentHashMap<>();

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

  /**
   * Returns a future that completes as {@code appended} does, or earlier with
   * NOT_LEADER_OR_FOLLOWER when {@link #check} finds the lease lost while it waits.
   */
  public CompletableFuture<ProduceResult> track(
      TopicPartition tp, CompletableFuture<ProduceResult> appended) {
    if (appended.isDone()) {
      return appended;
    }
    CompletableFuture<ProduceResult> answer = new CompletableFuture<>();
    waiting.put(answer, tp);
    answer.whenComplete((r, e) -> waiting.remove(answer));
    appended.whenComplete(
        (r, e) -> {
          if (e != null) {
            answer.completeExceptionally(e);
          } else {
            answer.complete(r);
          }
        });
    return answer;
  }

  /**
   * Answers every waiting produce NOT_LEADER_OR_FOLLOWER when the lease is not held; returns how
   * many.
   */
  public int check() {
    if (waiting.isEmpty() || holds()) {
      return 0;
    }
    int failed = 0;
    for (Map.Entry<CompletableFuture<ProduceResult>, TopicPartition> e : waiting.entrySet()) {
      if (e.getKey()
          .complete(
              ProduceResult.error(
                  ErrorCode.NOT_LEADER_OR_FOLLOWER,
                  "broker "
                      + brokerId
                      + " lost contact with the active controller while this produce to "
                      + e.getValue()
                      + " waited for replication; it no longer acts as the leader (the batch"
                      + " may have been appended)",
                  LeaderHintInfo.UNKNOWN))) {
        failed++;
      }
    }
    return failed;
  }

  /** How many acks=all produces wait (tests). */
  public int waitingProduces() {
    return waiting.size();
  }
}
