package dev.spool.quorum.controller;

import dev.spool.common.ScramMechanism;
import dev.spool.config.TopicConfig;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active controller's time-based duties, as one pure function run on every tick: image,
 * heartbeat tracker and {@code nowMs} in, the records to write out. Level-triggered: it looks at
 * the whole state each time, so a record that was lost or rejected (a race with another write) is
 * simply decided again on the next tick.
 *
 * <ol>
 *   <li>Bootstrap: metadata.version, when no level is finalized yet ({@link
 *       FeatureDecisions#bootstrap}), with the SCRAM users of {@code spool storage format
 *       --add-scram} that have no credential of that mechanism yet.
 *   <li>Broker states: fence a broker whose session expired or that asks to be fenced; mark a
 *       broker that asks for controlled shutdown; unfence a fenced broker that heartbeats and has
 *       caught up with its own registration; record the data directories a broker's heartbeat
 *       reports offline (which makes it ineligible, so step 3 moves its leaderships and takes it
 *       out of the ISRs). Below metadata.version {@link MetadataVersion#BROKER_DIRS_OFFLINE} that
 *       record may not be written: such a broker is fenced instead, and stays fenced while it
 *       reports the directories (the same repairs follow).
 *   <li>Reconcile, on the image as changed by step 1: every partition whose ISR holds an ineligible
 *       broker, whose leader is ineligible, or that has no leader while an eligible ISR member
 *       exists, is repaired ({@link PartitionChangeBuilder}; unclean only when the topic allows
 *       it).
 *   <li>Leaders their followers cannot reach: a partition whose leader a strict majority of its
 *       other eligible ISR members report unreachable in their heartbeats (their fetches to it went
 *       unanswered for their {@code replica.silent.time.max.ms}; the leader itself still
 *       heartbeats, so nothing fences it), while those members are at least the topic's
 *       min.insync.replicas, gets the first of them in replica order as leader and them as ISR
 *       ({@link #movedFromUnreachableLeader}). The old leader leaves the ISR: it could not fetch
 *       from the new one either, and an ISR that waits for it takes no acks=all write. Only ISR
 *       members lead, so nothing committed is lost; the old leader, which may still take acks=1
 *       writes until the change reaches it, loses them as at any leader change.
 *   <li>Preferred-leader balancing when due: partitions not led by their preferred replica, where
 *       that replica is eligible and in the ISR, get it back as leader, unless a majority of the
 *       other ISR members report it unreachable.
 * </ol>
 *
 * Broker records come first in the batch; the total is bounded (the rest waits a tick).
 */
public final class ClusterDuties {
  private static final Logger log = LoggerFactory.getLogger(ClusterDuties.class);

  private ClusterDuties() {}

  public record Outcome(List<MetadataRecord> records, String reason) {
    public boolean isEmpty() {
      return records.isEmpty();
    }
  }

  public static Outcome decide(
      MetadataImage image,
      BrokerHeartbeatTracker tracker,
      long nowMs,
      boolean balanceDue,
      ControllerSettings s) {
    List<MetadataRecord> brokerRecords = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    MetadataRecord bootstrap = FeatureDecisions.bootstrap(image, s);
    if (bootstrap != null) {
      brokerRecords.add(bootstrap);
      reasons.add(
          "finalize metadata.version " + bootstrap.getFeatureLevel().getFeatureLevel() + " (new)");
      for (ScramCredentialRecord c : s.bootstrapCredentials()) {
        ScramMechanism m = ScramMechanism.forName(c.getMechanism()).orElseThrow();
        if (image.scramCredential(c.getUser(), m) == null) {
          brokerRecords.add(MetadataRecord.newBuilder().setScramCredential(c).build());
          reasons.add(
              "bootstrap " + m.mechanismName() + " credential of user '" + c.getUser() + "'");
        }
      }
    }
    int level =
        bootstrap != null ? bootstrap.getFeatureLevel().getFeatureLevel() : image.metadataVersion();
    boolean recordDirs = level >= MetadataVersion.BROKER_DIRS_OFFLINE;
    List<BrokerRegistration> brokers = new ArrayList<>(image.brokers().values());
    brokers.sort(Comparator.comparingInt(BrokerRegistration::id));
    for (BrokerRegistration b : brokers) {
      List<String> failedDirs = tracker.newOfflineDirs(b);
      boolean fenceForDirs = !failedDirs.isEmpty() && !recordDirs;
      if (!failedDirs.isEmpty() && recordDirs) {
        brokerRecords.add(Records.brokerDirsOffline(b.id(), b.epoch(), failedDirs));
        reasons.add("data directories " + failedDirs + " of " + b.id() + " offline");
      }
      if (!b.fenced()) {
        if (tracker.isExpired(b, nowMs)) {
          brokerRecords.add(Records.fenceBroker(b.id(), b.epoch()));
          reasons.add("fence " + b.id() + " (session expired)");
        } else if (tracker.wantsFence(b)) {
          brokerRecords.add(Records.fenceBroker(b.id(), b.epoch()));
          reasons.add("fence " + b.id() + " (asked)");
        } else if (fenceForDirs) {
          // Decided once per registration: the next tick sees it fenced.
          log.warn(
              "broker {} reports data directories {} offline; metadata.version {} cannot record"
                  + " that (BrokerDirsOfflineRecord needs level {}): fencing the broker instead"
                  + " until it restarts",
              b.id(),
              failedDirs,
              level,
              MetadataVersion.BROKER_DIRS_OFFLINE);
          brokerRecords.add(Records.fenceBroker(b.id(), b.epoch()));
          reasons.add("fence " + b.id() + " (data directories " + failedDirs + " offline)");
        } else if (tracker.wantsShutdown(b) && !b.inControlledShutdown()) {
          brokerRecords.add(Records.brokerShutdown(b.id(), b.epoch()));
          reasons.add("controlled shutdown of " + b.id());
        }
      } else if (!fenceForDirs && tracker.mayUnfence(b, nowMs)) {
        brokerRecords.add(Records.unfenceBroker(b.id(), b.epoch()));
        reasons.add("unfence " + b.id());
      }
    }
    MetadataImage after = image;
    if (!brokerRecords.isEmpty()) {
      ImageBuilder scratch = new ImageBuilder(image);
      MetadataApplier.apply(
          scratch, MetadataBatch.newBuilder().addAllRecords(brokerRecords).build(), image.offset());
      after = scratch.build(image.offset());
    }
    List<MetadataRecord> out = new ArrayList<>(brokerRecords);
    int budget = s.maxRecordsPerWrite() - out.size();
    Set<String> changed = new HashSet<>();
    int repairs = 0;
    for (PartitionState p : after.allPartitions()) {
      if (budget <= 0) {
        break;
      }
      if (!mayNeedRepair(p, after)) {
        continue;
      }
      Optional<MetadataRecord> r =
          new PartitionChangeBuilder(p, after)
              .uncleanAllowed(PartitionDecisions.uncleanAllowed(after, p))
              .build();
      if (r.isPresent()) {
        out.add(r.get());
        changed.add(p.topicId() + "/" + p.partition());
        budget--;
        repairs++;
      }
    }
    if (repairs > 0) {
      reasons.add("repair " + repairs + " partitions");
    }
    budget -= moveFromUnreachableLeaders(after, tracker, budget, changed, out, reasons);
    if (balanceDue) {
      int moved = 0;
      for (PartitionState p : after.allPartitions()) {
        if (budget <= 0) {
          break;
        }
        int preferred = p.preferredLeader();
        if (p.leader() != preferred
            && p.isrContains(preferred)
            && after.isEligible(preferred)
            && !changed.contains(p.topicId() + "/" + p.partition())
            && !unreachableByMajority(p, preferred, after, tracker)) {
          PartitionChangeBuilder.Result res =
              new PartitionChangeBuilder(p, after).electPreferred().compute();
          if (res.leader() == preferred) {
            out.add(Records.partitionChange(p, preferred, res.isr()));
            budget--;
            moved++;
          }
        }
      }
      if (moved > 0) {
        reasons.add("move " + moved + " leaders to preferred replicas");
      }
    }
    return new Outcome(out, String.join(", ", reasons));
  }

  /**
   * Step 3: moves, within at most {@code budget} records, the leaderships of partitions whose ISR
   * cannot reach their leader ({@link #movedFromUnreachableLeader}), skipping those already {@code
   * changed}; returns how many records it added.
   */
  private static int moveFromUnreachableLeaders(
      MetadataImage after,
      BrokerHeartbeatTracker tracker,
      int budget,
      Set<String> changed,
      List<MetadataRecord> out,
      List<String> reasons) {
    if (!tracker.anyUnreachableReported()) {
      return 0;
    }
    List<String> movedAway = new ArrayList<>();
    for (PartitionState p : after.allPartitions()) {
      if (movedAway.size() >= budget) {
        break;
      }
      String key = p.topicId() + "/" + p.partition();
      if (changed.contains(key)) {
        continue;
      }
      Optional<PartitionChangeBuilder.Result> moved = movedFromUnreachableLeader(p, after, tracker);
      if (moved.isPresent()) {
        out.add(Records.partitionChange(p, moved.get().leader(), moved.get().isr()));
        changed.add(key);
        movedAway.add(p.topicPartition() + " from " + p.leader() + " to " + moved.get().leader());
      }
    }
    if (!movedAway.isEmpty()) {
      reasons.add("move leaders their ISR cannot reach: " + String.join(", ", movedAway));
    }
    return movedAway.size();
  }

  /**
   * When a strict majority of the eligible ISR members of {@code p} other than its (eligible)
   * leader report that leader unreachable, and those members are at least the topic's
   * min.insync.replicas: the new state, with the first of them in replica order as leader and them
   * (in ISR order) as the ISR. Empty otherwise. The new ISR is a subset of the old one, so its
   * leader has everything committed.
   */
  static Optional<PartitionChangeBuilder.Result> movedFromUnreachableLeader(
      PartitionState p, MetadataImage image, BrokerHeartbeatTracker tracker) {
    int leader = p.leader();
    if (!p.hasLeader() || !image.isEligible(leader) || !p.isrContains(leader)) {
      return Optional.empty(); // the repair's business
    }
    if (!unreachableByMajority(p, leader, image, tracker)) {
      return Optional.empty();
    }
    List<Integer> others = otherEligibleIsrMembers(p, leader, image);
    TopicImage topic = image.topicById(p.topicId());
    int minIsr =
        topic == null
            ? p.replicas().size()
            : TopicConfig.effectiveMinInsyncReplicas(topic.config(), p.replicas().size());
    if (others.size() < minIsr) {
      return Optional.empty(); // no acks=all write either way: leave it to the leader's lag rule
    }
    int next = PartitionState.NO_LEADER;
    for (int r : p.replicas()) {
      if (others.contains(r)) {
        next = r;
        break;
      }
    }
    if (next == PartitionState.NO_LEADER) {
      return Optional.empty();
    }
    return Optional.of(new PartitionChangeBuilder.Result(next, List.copyOf(others), false));
  }

  /**
   * Whether a strict majority of the eligible ISR members of {@code p} other than {@code broker}
   * report, in their last heartbeat, that they cannot fetch from {@code broker}.
   */
  static boolean unreachableByMajority(
      PartitionState p, int broker, MetadataImage image, BrokerHeartbeatTracker tracker) {
    List<Integer> others = otherEligibleIsrMembers(p, broker, image);
    int reporting = 0;
    for (int m : others) {
      BrokerRegistration reg = image.broker(m);
      if (reg != null && tracker.reportsUnreachable(reg, broker)) {
        reporting++;
      }
    }
    return !others.isEmpty() && 2 * reporting > others.size();
  }

  private static List<Integer> otherEligibleIsrMembers(
      PartitionState p, int broker, MetadataImage image) {
    List<Integer> others = new ArrayList<>();
    for (int m : p.isr()) {
      if (m != broker && image.isEligible(m)) {
        others.add(m);
      }
    }
    return others;
  }

  /**
   * False only when {@link PartitionChangeBuilder#build} (without preferred election) is sure to
   * find nothing to change: the partition has a leader in its ISR and every ISR member is eligible,
   * so the computed ISR and leader are the current ones. Every tick looks at every partition; this
   * keeps that look to a few lookups for the healthy ones (the builder, and the topic config it
   * needs for unclean election, only for the rest).
   */
  static boolean mayNeedRepair(PartitionState p, MetadataImage image) {
    boolean leaderInIsr = false; // NO_LEADER (-1) is never a member
    for (int id : p.isr()) {
      if (!image.isEligible(id)) {
        return true;
      }
      leaderInIsr |= id == p.leader();
    }
    return !leaderInIsr;
  }

  /**
   * Whether a broker in controlled shutdown has handed over all it can: for every partition whose
   * ISR holds it, the image already is in the state a repair would produce, i.e. it still leads
   * only partitions with no other eligible ISR member and is in no other ISR.
   */
  public static boolean shutdownComplete(MetadataImage image, int brokerId) {
    BrokerRegistration b = image.broker(brokerId);
    if (b == null || !b.inControlledShutdown()) {
      return false;
    }
    for (PartitionState p : image.allPartitions()) {
      if (!p.isrContains(brokerId)) {
        continue;
      }
      PartitionChangeBuilder.Result r = new PartitionChangeBuilder(p, image).compute();
      if (r.leader() != p.leader() || !r.isr().equals(p.isr())) {
        return false;
      }
    }
    return true;
  }
}
