package dev.spool.chaos.checker;

import dev.spool.chaos.history.History;
import dev.spool.chaos.nemesis.FaultWindow;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a set of {@link Checker}s over one history and merges their results into a {@link Verdict}.
 * Pure.
 */
public final class CheckerSuite {
  private final List<Checker> checkers;

  public CheckerSuite(List<Checker> checkers) {
    this.checkers = List.copyOf(checkers);
  }

  /** Every checker we have: the Jepsen anomalies first, then the white-box checks. */
  public static CheckerSuite standard() {
    return new CheckerSuite(
        List.of(
            new LostWrite(),
            new Unseen(),
            new Duplicate(),
            new InconsistentOffsets(),
            new NonmonotonicSend(),
            new NonmonotonicPoll(),
            new PollSkip(),
            new AbortedRead(),
            new ReplicaDivergence(),
            new LeaderEpochMonotonic(),
            new LeadershipStability()));
  }

  public List<Checker> checkers() {
    return checkers;
  }

  public Verdict check(History history, List<FaultWindow> faults) {
    Analysis analysis = Analysis.of(history, faults);
    Map<String, CheckResult> results = new LinkedHashMap<>();
    Validity valid = Validity.TRUE;
    for (Checker c : checkers) {
      CheckResult r = c.check(analysis);
      results.put(c.name(), r);
      valid = valid.and(r.valid());
    }
    return new Verdict(valid, Counts.of(history), results, Availability.compute(history, faults));
  }
}
