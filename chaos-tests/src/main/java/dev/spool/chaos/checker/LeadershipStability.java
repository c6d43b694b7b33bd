package dev.spool.chaos.checker;

import dev.spool.chaos.history.EpochObservation;
import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * <b>leadership-ping-pong</b> (white-box): a fault that comes and goes (a flapping link, a node
 * stopped 1 s of every 3) or cuts only one direction moves a partition's leadership at most once
 * while it lasts. A leader that is moved away and back, or back and forth, while the fault lasts
 * costs the clients a leader switch each time and is the ping-pong the controller must avoid.
 *
 * <p>Judged: every applied {@code FLAPPING_LINK}, {@code INTERMITTENT_PAUSE} and {@code
 * ONE_WAY_LOSS} window that overlaps no other fault (with two faults at once, two moves can both be
 * right). A leader change is an epoch whose leader differs from the leader of the epoch before it
 * (epochs without a leader skipped), at the time any node first reported that epoch; changes from
 * the fault's start to its heal count. A move back to the preferred leader after the heal is not
 * counted.
 */
public final class LeadershipStability implements Checker {
  public static final String NAME = "leadership-ping-pong";

  /** The fault kinds judged. */
  static final Set<FaultKind> JUDGED =
      EnumSet.of(FaultKind.FLAPPING_LINK, FaultKind.INTERMITTENT_PAUSE, FaultKind.ONE_WAY_LOSS);

  /** A leader that took over a partition in an epoch, and when a node first said so. */
  private record Change(int epoch, int from, int to, long timeNs) {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(Analysis a) {
    List<FaultWindow> judged = judged(a.faults());
    if (judged.isEmpty()) {
      return CheckResult.of(
          NAME, List.of(), "no flapping, intermittent or one-way fault alone in its window");
    }
    List<EpochObservation> obs = a.history().epochObservations();
    if (obs.isEmpty()) {
      return CheckResult.unknown(NAME, "the history has no epoch observations");
    }
    Map<TopicPartition, List<Change>> changes = changes(obs);
    List<Anomaly> found = new ArrayList<>();
    int inside = 0;
    for (FaultWindow w : judged) {
      long end = w.endOr(Long.MAX_VALUE);
      for (Map.Entry<TopicPartition, List<Change>> e : changes.entrySet()) {
        List<Change> during =
            e.getValue().stream()
                .filter(c -> c.timeNs() >= w.startNs() && c.timeNs() <= end)
                .toList();
        inside += during.size();
        if (during.size() > 1) {
          List<Integer> leaders = new ArrayList<>();
          leaders.add(during.get(0).from());
          during.forEach(c -> leaders.add(c.to()));
          found.add(
              Anomaly.of(NAME, e.getKey())
                  .detail("fault", w.id())
                  .detail("faultKind", w.kind().name())
                  .detail("leaders", leaders)
                  .detail("epochs", during.stream().map(Change::epoch).toList())
                  .detail("timesNs", during.stream().map(Change::timeNs).toList())
                  .summary(
                      e.getKey()
                          + " changed leader "
                          + during.size()
                          + " times during fault #"
                          + w.id()
                          + " ("
                          + w.label()
                          + "): "
                          + leaders));
        }
      }
    }
    return CheckResult.of(
        NAME,
        found,
        judged.size()
            + " faults judged, "
            + inside
            + " leader changes inside them over "
            + changes.size()
            + " partitions");
  }

  /** The judged kinds, applied, overlapping no other fault. */
  static List<FaultWindow> judged(List<FaultWindow> faults) {
    List<FaultWindow> out = new ArrayList<>();
    for (FaultWindow w : faults) {
      if (!JUDGED.contains(w.kind()) || w.targets().isEmpty()) {
        continue;
      }
      boolean alone =
          faults.stream()
              .filter(o -> o != w)
              .noneMatch(
                  o ->
                      o.startNs() <= w.endOr(Long.MAX_VALUE)
                          && w.startNs() <= o.endOr(Long.MAX_VALUE));
      if (alone) {
        out.add(w);
      }
    }
    return out;
  }

  /** Each partition's leader changes in epoch order, from every node's observations. */
  private static Map<TopicPartition, List<Change>> changes(List<EpochObservation> obs) {
    Map<TopicPartition, TreeMap<Integer, EpochObservation>> firstByEpoch = new TreeMap<>();
    for (EpochObservation o : obs) {
      if (o.leader() == EpochObservation.NO_LEADER) {
        continue;
      }
      firstByEpoch
          .computeIfAbsent(o.partition(), tp -> new TreeMap<>())
          .merge(o.leaderEpoch(), o, (x, y) -> x.timeNs() <= y.timeNs() ? x : y);
    }
    Map<TopicPartition, List<Change>> out = new TreeMap<>();
    firstByEpoch.forEach(
        (tp, byEpoch) -> {
          List<Change> list = new ArrayList<>();
          EpochObservation prev = null;
          for (EpochObservation o : byEpoch.values()) {
            if (prev != null && o.leader() != prev.leader()) {
              list.add(new Change(o.leaderEpoch(), prev.leader(), o.leader(), o.timeNs()));
            }
            prev = o;
          }
          out.put(tp, list);
        });
    return out;
  }
}
