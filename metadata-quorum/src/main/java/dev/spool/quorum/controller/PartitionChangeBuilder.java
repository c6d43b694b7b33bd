package dev.spool.quorum.controller;

import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Computes the repaired state of one partition from the broker states in an image, the way KRaft's
 * PartitionChangeBuilder does, and returns the PartitionChangeRecord if anything changes. Pure.
 *
 * <p>Rules, in order:
 *
 * <ol>
 *   <li>ISR: members that are not eligible (unregistered, fenced, in controlled shutdown, or with
 *       an offline data directory) leave it.
 *   <li>Leader: with {@link #electPreferred} the preferred replica if it is in that ISR and
 *       eligible; else the current leader if it still qualifies; else the first replica (in
 *       assignment order) that is in the ISR and eligible.
 *   <li>If nobody qualifies: a current leader that is only shutting down (still unfenced) stays
 *       leader and in the ISR, because handing over is impossible and the partition should stay
 *       available until the broker really stops (not one whose data directory failed: it cannot
 *       serve, so the partition goes without a leader, as Kafka's); otherwise, if unclean election
 *       is allowed, the first eligible replica leads with an ISR of itself; otherwise there is no
 *       leader.
 *   <li>The ISR is never emptied: if every member left, the last leader (or the first member)
 *       stays, as in KRaft, so that the replica most likely to have all committed data is the one a
 *       clean election waits for.
 * </ol>
 */
public final class PartitionChangeBuilder {
  private final PartitionState p;
  private final MetadataImage image;
  private boolean electPreferred;
  private boolean uncleanAllowed;

  public PartitionChangeBuilder(PartitionState p, MetadataImage image) {
    this.p = p;
    this.image = image;
  }

  public PartitionChangeBuilder electPreferred() {
    this.electPreferred = true;
    return this;
  }

  public PartitionChangeBuilder uncleanAllowed(boolean allowed) {
    this.uncleanAllowed = allowed;
    return this;
  }

  /** The resulting leader and ISR. */
  public record Result(int leader, List<Integer> isr, boolean unclean) {}

  public Result compute() {
    List<Integer> isr = new ArrayList<>();
    for (int id : p.isr()) {
      if (image.isEligible(id)) {
        isr.add(id);
      }
    }
    int leader = PartitionState.NO_LEADER;
    int preferred = p.preferredLeader();
    if (electPreferred && isr.contains(preferred)) {
      leader = preferred;
    } else if (p.hasLeader() && isr.contains(p.leader())) {
      leader = p.leader();
    } else {
      for (int r : p.replicas()) {
        if (isr.contains(r)) {
          leader = r;
          break;
        }
      }
    }
    boolean unclean = false;
    if (leader == PartitionState.NO_LEADER) {
      BrokerRegistration cur = p.hasLeader() ? image.broker(p.leader()) : null;
      if (cur != null && !cur.fenced() && !cur.hasOfflineDirs() && p.isrContains(cur.id())) {
        leader = cur.id();
        isr = inIsrOrder(isr, cur.id());
      } else if (uncleanAllowed) {
        for (int r : p.replicas()) {
          if (image.isEligible(r)) {
            leader = r;
            isr = List.of(r);
            unclean = !p.isrContains(r);
            break;
          }
        }
      }
    }
    if (isr.isEmpty()) {
      int keep = p.hasLeader() && p.isrContains(p.leader()) ? p.leader() : p.isr().get(0);
      isr = List.of(keep);
    }
    return new Result(leader, List.copyOf(isr), unclean);
  }

  /** The change record, or empty when the partition is already in the computed state. */
  public Optional<MetadataRecord> build() {
    Result r = compute();
    if (r.leader() == p.leader() && r.isr().equals(p.isr())) {
      return Optional.empty();
    }
    return Optional.of(Records.partitionChange(p, r.leader(), r.isr()));
  }

  /** {@code isr} plus {@code id}, ordered as in the partition's current ISR. */
  private List<Integer> inIsrOrder(List<Integer> isr, int id) {
    List<Integer> out = new ArrayList<>();
    for (int m : p.isr()) {
      if (m == id || isr.contains(m)) {
        out.add(m);
      }
    }
    return out;
  }
}
