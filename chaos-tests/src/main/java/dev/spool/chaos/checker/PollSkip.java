package dev.spool.chaos.checker;

import java.util.ArrayList;
import java.util.List;

/**
 * <b>poll-skip</b>: a consumer session jumped over records that exist.
 *
 * <p>Jepsen ({@code kafka.clj}, {@code poll-skip+nonmonotonic-cases}, {@code :skip}): "two
 * successive operations by a single process skipped over one or more values for some key": the
 * previous poll ended at offset o, the next one began beyond the next known offset after o, and the
 * history shows records at the offsets in between (offsets nobody ever saw are not counted, so
 * holes in the offset space are not skips). Also inside one poll (Jepsen's {@code int-poll-skip}),
 * reported with {@code scope=within-poll}. Sessions and resets: {@link ConsumerSteps}.
 */
public final class PollSkip implements Checker {
  public static final String NAME = "poll-skip";
  private static final int MAX_SKIPPED_LISTED = 32;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(Analysis a) {
    List<Anomaly> found = new ArrayList<>();
    for (ConsumerSteps.Step s : ConsumerSteps.of(a)) {
      if (s.delta() <= 1) {
        continue;
      }
      VersionOrder vo = a.versionOrder(s.partition());
      int from = vo.indexOf(s.fromOffset());
      int to = vo.indexOf(s.toOffset());
      List<Long> skippedOffsets = new ArrayList<>();
      List<Long> skippedValues = new ArrayList<>();
      for (int i = from + 1; i < to && skippedOffsets.size() < MAX_SKIPPED_LISTED; i++) {
        long o = vo.offsetAt(i);
        skippedOffsets.add(o);
        skippedValues.add(vo.claimsAt(o).keySet().iterator().next());
      }
      found.add(
          Anomaly.of(NAME, s.partition())
              .offsets(List.of(s.fromOffset(), s.toOffset()))
              .values(skippedValues)
              .ops(
                  List.of(s.from().index(), s.to().index()),
                  List.of(s.from().timeNs(), s.to().timeNs()))
              .detail("process", s.process())
              .detail("delta", s.delta())
              .detail("scope", s.scope())
              .detail("skippedOffsets", skippedOffsets)
              .summary(
                  "process "
                      + s.process()
                      + " read "
                      + s.partition()
                      + "@"
                      + s.fromOffset()
                      + " (op "
                      + s.from().index()
                      + ") then @"
                      + s.toOffset()
                      + " (op "
                      + s.to().index()
                      + "), skipping "
                      + (s.delta() - 1)
                      + " known record(s) at "
                      + skippedOffsets
                      + ", "
                      + s.scope()));
    }
    return CheckResult.of(NAME, found, null);
  }
}
