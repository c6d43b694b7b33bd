package dev.spool.chaos.checker;

import dev.spool.chaos.history.BatchSummary;
import dev.spool.chaos.history.ReplicaSnapshot;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * <b>replica-divergence</b> (white-box): two replicas of a partition, or one replica at two
 * moments, hold different batches below their high watermarks.
 *
 * <p>Everything below a replica's high watermark is committed: it was in every ISR member's log,
 * and Spool stores batches exactly as the leader assigned them (same offsets, same leader epoch,
 * same bytes, so the same CRC). So for any two snapshots of one partition, any batch below each
 * snapshot's high watermark that overlaps a batch of the other must be identical: same base and
 * last offset, leader epoch and CRC. A batch present in one snapshot and absent from the other
 * (retention moved the log start, or a follower's HW is behind) is not compared. Comparing a
 * replica with itself across time catches recovery or truncation eating committed data.
 *
 * <p>Not a Jepsen checker (Jepsen is black-box); this is the white-box check the issue asks for.
 * Only the first difference per pair of snapshots is reported: later ones usually follow from it.
 */
public final class ReplicaDivergence implements Checker {
  public static final String NAME = "replica-divergence";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(Analysis a) {
    List<ReplicaSnapshot> snapshots = a.history().replicaSnapshots();
    if (snapshots.isEmpty()) {
      return CheckResult.unknown(NAME, "the history has no replica snapshots");
    }
    Map<TopicPartition, List<ReplicaSnapshot>> byPartition = new TreeMap<>();
    for (ReplicaSnapshot s : snapshots) {
      byPartition.computeIfAbsent(s.partition(), tp -> new ArrayList<>()).add(s);
    }
    List<Anomaly> found = new ArrayList<>();
    Set<String> reported = new HashSet<>();
    int pairs = 0;
    for (List<ReplicaSnapshot> list : byPartition.values()) {
      for (int i = 0; i < list.size(); i++) {
        for (int j = i + 1; j < list.size(); j++) {
          pairs++;
          Anomaly an = firstDifference(list.get(i), list.get(j));
          if (an != null && reported.add(dedupKey(list.get(i), list.get(j), an))) {
            found.add(an);
          }
        }
      }
    }
    return CheckResult.of(NAME, found, "compared " + pairs + " pairs of replica snapshots");
  }

  private static String dedupKey(ReplicaSnapshot x, ReplicaSnapshot y, Anomaly an) {
    int lo = Math.min(x.node(), y.node());
    int hi = Math.max(x.node(), y.node());
    return x.partition() + "/" + lo + "/" + hi + "/" + an.offsets();
  }

  private static Anomaly firstDifference(ReplicaSnapshot x, ReplicaSnapshot y) {
    List<BatchSummary> xs = committed(x);
    List<BatchSummary> ys = committed(y);
    int i = 0;
    int j = 0;
    while (i < xs.size() && j < ys.size()) {
      BatchSummary bx = xs.get(i);
      BatchSummary by = ys.get(j);
      if (bx.overlaps(by)) {
        if (!bx.equals(by)) {
          return anomaly(x, y, bx, by);
        }
        i++;
        j++;
      } else if (bx.lastOffset() < by.baseOffset()) {
        i++;
      } else {
        j++;
      }
    }
    return null;
  }

  private static List<BatchSummary> committed(ReplicaSnapshot s) {
    List<BatchSummary> out = new ArrayList<>();
    for (BatchSummary b : s.batches()) {
      if (b.lastOffset() < s.highWatermark()) {
        out.add(b);
      }
    }
    return out;
  }

  private static Anomaly anomaly(
      ReplicaSnapshot x, ReplicaSnapshot y, BatchSummary bx, BatchSummary by) {
    String who =
        x.node() == y.node()
            ? "node " + x.node() + " at two times"
            : "nodes " + x.node() + " and " + y.node();
    return Anomaly.of(NAME, x.partition())
        .offsets(List.of(Math.max(bx.baseOffset(), by.baseOffset())))
        .detail("nodes", List.of(x.node(), y.node()))
        .detail("snapshotTimesNs", List.of(x.timeNs(), y.timeNs()))
        .detail("highWatermarks", List.of(x.highWatermark(), y.highWatermark()))
        .detail("batches", List.of(describe(bx), describe(by)))
        .summary(
            x.partition()
                + ": "
                + who
                + " disagree below the high watermark: "
                + describe(bx)
                + " vs "
                + describe(by));
  }

  private static String describe(BatchSummary b) {
    return "["
        + b.baseOffset()
        + ".."
        + b.lastOffset()
        + " epoch "
        + b.leaderEpoch()
        + " crc "
        + Long.toHexString(b.crc())
        + "]";
  }
}
