package dev.spool.chaos.checker;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.FaultWindow;
import java.util.ArrayList;
import java.util.List;

/**
 * Availability figures, not an anomaly: how long the cluster went without acknowledging any write,
 * overall and around each fault, and per-second throughput and latency for the report's plot. Pure.
 *
 * <p>A <em>gap</em> is a maximal interval with no acknowledged write (no {@code ok} send
 * completion), bounded by acknowledgements or by the run's start and end. A fault's longest gap is
 * the longest gap that overlaps the fault's window, unclipped: an outage that begins with a kill
 * and lasts past the restart is charged in full to that kill. Recovery is the time from heal to the
 * first acknowledgement after it.
 */
public final class Availability {
  public static final long BUCKET_NS = 1_000_000_000L;

  private Availability() {}

  /** An interval without acknowledged writes. */
  public record Gap(long startNs, long endNs) {
    public long durationNs() {
      return endNs - startNs;
    }
  }

  /** One fault window's figures. {@code recoveryNs} is null if no write was acked after heal. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record WindowAvailability(
      int faultId,
      FaultKind kind,
      String label,
      long startNs,
      long endNs,
      int acknowledgedDuring,
      Gap longestGap,
      Long recoveryNs) {}

  /**
   * One second of the run. Latencies are of ok sends completing in this second, in ms (null when
   * none completed); {@code valuesRead} counts records returned by ok polls.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Bucket(
      int second,
      int sendOk,
      int sendFail,
      int sendInfo,
      int pollOk,
      int valuesRead,
      Double latencyP50Ms,
      Double latencyP99Ms,
      Double latencyMaxMs) {}

  /** All availability figures of a run. */
  public record Report(
      long runEndNs,
      int acknowledgedWrites,
      Gap longestGap,
      List<WindowAvailability> faults,
      List<Bucket> series) {}

  public static Report compute(History history, List<FaultWindow> faults) {
    long runEnd = history.endNs();
    for (FaultWindow f : faults) {
      runEnd = Math.max(runEnd, Math.max(f.startNs(), f.endNs()));
    }
    long[] acks =
        history.ops().stream()
            .filter(op -> op.is(OpType.OK, OpFunction.SEND))
            .mapToLong(Op::timeNs)
            .sorted()
            .toArray();
    List<Gap> gaps = gaps(acks, runEnd);
    Gap longest = longestOverlapping(gaps, 0, runEnd);
    List<WindowAvailability> windows = new ArrayList<>();
    for (FaultWindow f : faults) {
      long end = f.endOr(runEnd);
      int during = countIn(acks, f.startNs(), end);
      Long recovery = null;
      if (f.healed()) {
        int i = lowerBound(acks, f.endNs());
        recovery = i < acks.length ? acks[i] - f.endNs() : null;
      }
      windows.add(
          new WindowAvailability(
              f.id(),
              f.kind(),
              f.label(),
              f.startNs(),
              f.endNs(),
              during,
              longestOverlapping(gaps, f.startNs(), end),
              recovery));
    }
    return new Report(runEnd, acks.length, longest, windows, series(history, runEnd));
  }

  private static List<Gap> gaps(long[] acks, long runEnd) {
    List<Gap> gaps = new ArrayList<>();
    long prev = 0;
    for (long t : acks) {
      gaps.add(new Gap(prev, t));
      prev = t;
    }
    gaps.add(new Gap(prev, Math.max(prev, runEnd)));
    return gaps;
  }

  private static Gap longestOverlapping(List<Gap> gaps, long from, long to) {
    Gap best = null;
    for (Gap g : gaps) {
      boolean overlaps = g.startNs() <= to && g.endNs() >= from;
      if (overlaps && (best == null || g.durationNs() > best.durationNs())) {
        best = g;
      }
    }
    return best;
  }

  private static int countIn(long[] sorted, long from, long to) {
    return lowerBound(sorted, to + 1) - lowerBound(sorted, from);
  }

  /** First index whose value is >= key. */
  private static int lowerBound(long[] sorted, long key) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static List<Bucket> series(History history, long runEnd) {
    int n = (int) (runEnd / BUCKET_NS) + 1;
    int[] ok = new int[n];
    int[] fail = new int[n];
    int[] info = new int[n];
    int[] polls = new int[n];
    int[] read = new int[n];
    List<List<Long>> latencies = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      latencies.add(new ArrayList<>());
    }
    for (Op op : history.ops()) {
      int b = (int) Math.min(n - 1, op.timeNs() / BUCKET_NS);
      if (op.f() == OpFunction.SEND) {
        switch (op.type()) {
          case OK -> {
            ok[b]++;
            long lat = history.latencyNs(op);
            if (lat >= 0) {
              latencies.get(b).add(lat);
            }
          }
          case FAIL -> fail[b]++;
          case INFO -> info[b]++;
          default -> {}
        }
      } else if (op.is(OpType.OK, OpFunction.POLL)) {
        polls[b]++;
        read[b] += op.reads().values().stream().mapToInt(List::size).sum();
      }
    }
    List<Bucket> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      long[] lat = latencies.get(i).stream().mapToLong(Long::longValue).sorted().toArray();
      out.add(
          new Bucket(
              i,
              ok[i],
              fail[i],
              info[i],
              polls[i],
              read[i],
              percentileMs(lat, 0.50),
              percentileMs(lat, 0.99),
              lat.length == 0 ? null : lat[lat.length - 1] / 1e6));
    }
    return out;
  }

  /** Nearest-rank percentile of sorted nanosecond values, in ms; null if there are none. */
  static Double percentileMs(long[] sortedNs, double p) {
    if (sortedNs.length == 0) {
      return null;
    }
    int rank = (int) Math.ceil(p * sortedNs.length);
    return sortedNs[Math.max(0, Math.min(sortedNs.length - 1, rank - 1))] / 1e6;
  }
}
