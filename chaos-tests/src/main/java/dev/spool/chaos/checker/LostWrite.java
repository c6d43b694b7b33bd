package dev.spool.chaos.checker;

import dev.spool.chaos.history.Op;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * <b>lost-write</b>: an acknowledged send that no consumer ever read, although consumers read past
 * its offset.
 *
 * <p>Jepsen ({@code kafka.clj}, {@code lost-write-cases}): for each partition take the highest
 * index any ok poll reached, <em>bound</em> (for each value read, the earliest index it appears at;
 * the maximum of those). Every value whose <em>last</em> appearance in the version order is at or
 * below bound should have been read by someone. Those never read by an ok poll, whose send must
 * have committed ({@link Analysis#mustHaveCommitted}: ok, or info and seen), are lost. Sends above
 * the highest read offset are not lost (a consumer may simply not have got there yet); they show up
 * under {@link Unseen} if they stay unread to the end.
 */
public final class LostWrite implements Checker {
  public static final String NAME = "lost-write";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(Analysis a) {
    if (!a.anyOkRead()) {
      return CheckResult.unknown(NAME, "no ok poll read anything, so no write can be shown lost");
    }
    List<Anomaly> found = new ArrayList<>();
    for (TopicPartition tp : a.partitions()) {
      Set<Long> read = a.okReads(tp);
      if (read.isEmpty()) {
        continue;
      }
      VersionOrder vo = a.versionOrder(tp);
      int bound = -1;
      for (long v : read) {
        bound = Math.max(bound, vo.firstIndexOf(v));
      }
      if (bound < 0) {
        continue;
      }
      long boundOffset = vo.offsetAt(bound);
      Op boundReader = firstReaderAt(a, tp, vo, boundOffset);
      List<Long> candidates = new ArrayList<>();
      for (long v : vo.values()) {
        if (!read.contains(v) && vo.lastIndexOf(v) <= bound) {
          candidates.add(v);
        }
      }
      candidates.sort(Long::compare);
      for (long v : candidates) {
        Op writer = a.writerOf(tp, v);
        if (writer == null || !a.mustHaveCommitted(writer)) {
          continue;
        }
        long offset = vo.offsetsOf(v).get(0);
        List<Integer> ops = new ArrayList<>(List.of(writer.index()));
        List<Long> times = new ArrayList<>(List.of(writer.timeNs()));
        if (boundReader != null) {
          ops.add(boundReader.index());
          times.add(boundReader.timeNs());
        }
        found.add(
            Anomaly.of(NAME, tp)
                .offsets(List.of(offset))
                .values(List.of(v))
                .ops(ops, times)
                .detail("index", vo.indexOf(offset))
                .detail("maxReadIndex", bound)
                .detail("maxReadOffset", boundOffset)
                .summary(
                    "value "
                        + v
                        + " acknowledged at "
                        + tp
                        + "@"
                        + offset
                        + " (op "
                        + writer.index()
                        + ") was never read, though consumers read up to offset "
                        + boundOffset
                        + (boundReader == null ? "" : " (op " + boundReader.index() + ")")));
      }
    }
    return CheckResult.of(NAME, found, null);
  }

  private static Op firstReaderAt(Analysis a, TopicPartition tp, VersionOrder vo, long offset) {
    for (long v : vo.claimsAt(offset).keySet()) {
      List<Op> readers = a.readersOf(tp, v);
      if (!readers.isEmpty()) {
        return readers.get(0);
      }
    }
    return null;
  }
}
