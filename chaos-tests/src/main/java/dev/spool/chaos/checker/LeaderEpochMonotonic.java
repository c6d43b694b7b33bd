package dev.spool.chaos.checker;

import dev.spool.chaos.history.BatchSummary;
import dev.spool.chaos.history.EpochObservation;
import dev.spool.chaos.history.ReplicaSnapshot;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * <b>leader-epoch-monotonic</b> (white-box): partition leader epochs only grow, and one epoch has
 * one leader.
 *
 * <p>Three rules, each a consequence of "the epoch grows on every leader change"
 * (docs/architecture.md#leader-epochs-and-truncation):
 *
 * <ol>
 *   <li>{@code went-backwards}: one node's successive observations of a partition never show a
 *       smaller epoch than it had already seen (a node's metadata may lag, but never rewinds).
 *   <li>{@code two-leaders}: all observations of a partition that name a leader for the same epoch
 *       name the same node. Two leaders in one epoch is split brain.
 *   <li>{@code batch-epochs}: within one replica snapshot, batch leader epochs never decrease with
 *       the offset (a later record cannot have been appended by an older leader).
 * </ol>
 */
public final class LeaderEpochMonotonic implements Checker {
  public static final String NAME = "leader-epoch-monotonic";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(Analysis a) {
    List<EpochObservation> obs = a.history().epochObservations();
    List<ReplicaSnapshot> snaps = a.history().replicaSnapshots();
    if (obs.isEmpty() && snaps.isEmpty()) {
      return CheckResult.unknown(
          NAME, "the history has no epoch observations or replica snapshots");
    }
    List<Anomaly> found = new ArrayList<>();
    wentBackwards(obs, found);
    twoLeaders(obs, found);
    batchEpochs(snaps, found);
    return CheckResult.of(
        NAME, found, obs.size() + " epoch observations, " + snaps.size() + " replica snapshots");
  }

  private static void wentBackwards(List<EpochObservation> obs, List<Anomaly> found) {
    Map<String, EpochObservation> latest = new HashMap<>();
    for (EpochObservation o : obs) {
      EpochObservation prev = latest.get(o.observer() + "/" + o.partition());
      if (prev != null && o.leaderEpoch() < prev.leaderEpoch()) {
        found.add(
            Anomaly.of(NAME, o.partition())
                .detail("rule", "went-backwards")
                .detail("observer", o.observer())
                .detail("epochs", List.of(prev.leaderEpoch(), o.leaderEpoch()))
                .detail("timesNs", List.of(prev.timeNs(), o.timeNs()))
                .summary(
                    "node "
                        + o.observer()
                        + " saw "
                        + o.partition()
                        + " at epoch "
                        + prev.leaderEpoch()
                        + " and later at epoch "
                        + o.leaderEpoch()));
        continue;
      }
      latest.put(o.observer() + "/" + o.partition(), o);
    }
  }

  private static void twoLeaders(List<EpochObservation> obs, List<Anomaly> found) {
    Map<TopicPartition, Map<Integer, TreeMap<Integer, List<Integer>>>> leaders = new TreeMap<>();
    for (EpochObservation o : obs) {
      if (o.leader() == EpochObservation.NO_LEADER) {
        continue;
      }
      leaders
          .computeIfAbsent(o.partition(), tp -> new TreeMap<>())
          .computeIfAbsent(o.leaderEpoch(), e -> new TreeMap<>())
          .computeIfAbsent(o.leader(), l -> new ArrayList<>())
          .add(o.observer());
    }
    leaders.forEach(
        (tp, byEpoch) ->
            byEpoch.forEach(
                (epoch, byLeader) -> {
                  if (byLeader.size() > 1) {
                    Map<String, Object> seenBy = new TreeMap<>();
                    byLeader.forEach(
                        (leader, observers) ->
                            seenBy.put(Integer.toString(leader), new TreeSet<>(observers)));
                    found.add(
                        Anomaly.of(NAME, tp)
                            .detail("rule", "two-leaders")
                            .detail("epoch", epoch)
                            .detail("observersByLeader", seenBy)
                            .summary(
                                tp
                                    + " had "
                                    + byLeader.size()
                                    + " leaders "
                                    + byLeader.keySet()
                                    + " in epoch "
                                    + epoch
                                    + " (observers by leader: "
                                    + seenBy
                                    + ")"));
                  }
                }));
  }

  private static void batchEpochs(List<ReplicaSnapshot> snaps, List<Anomaly> found) {
    for (ReplicaSnapshot s : snaps) {
      BatchSummary prev = null;
      for (BatchSummary b : s.batches()) {
        if (prev != null && b.leaderEpoch() < prev.leaderEpoch()) {
          found.add(
              Anomaly.of(NAME, s.partition())
                  .offsets(List.of(prev.baseOffset(), b.baseOffset()))
                  .detail("rule", "batch-epochs")
                  .detail("node", s.node())
                  .detail("epochs", List.of(prev.leaderEpoch(), b.leaderEpoch()))
                  .summary(
                      "node "
                          + s.node()
                          + "'s log of "
                          + s.partition()
                          + " has epoch "
                          + b.leaderEpoch()
                          + " at offset "
                          + b.baseOffset()
                          + " after epoch "
                          + prev.leaderEpoch()
                          + " at offset "
                          + prev.baseOffset()));
          break;
        }
        prev = b;
      }
    }
  }
}
