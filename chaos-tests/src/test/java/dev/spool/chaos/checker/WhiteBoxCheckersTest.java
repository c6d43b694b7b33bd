package dev.spool.chaos.checker;

import static dev.spool.chaos.checker.Histories.T0;
import static dev.spool.chaos.checker.Histories.history;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.chaos.history.BatchSummary;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The white-box checkers report what they should, and only that. */
@Tag("unit")
class WhiteBoxCheckersTest {
  private static final BatchSummary A = new BatchSummary(0, 4, 1, 0xAAAAL);
  private static final BatchSummary B = new BatchSummary(5, 9, 1, 0xBBBBL);
  private static final BatchSummary B_CORRUPT = new BatchSummary(5, 9, 1, 0xBAD0L);
  private static final BatchSummary C = new BatchSummary(10, 12, 2, 0xCCCCL);
  private static final BatchSummary C_OTHER = new BatchSummary(10, 11, 3, 0xDDDDL);

  @Test
  void shouldPassIdenticalReplicas() {
    Histories h =
        history().replica(1, T0, 13, A, B, C).replica(2, T0, 10, A, B).replica(3, T0, 13, A, B, C);
    CheckResult r = new ReplicaDivergence().check(h.analysis());
    assertEquals(Validity.TRUE, r.valid(), () -> r.anomalies().toString());
  }

  @Test
  void shouldReportDifferentChecksumBelowHighWatermark() {
    Histories h = history().replica(1, T0, 13, A, B, C).replica(2, T0, 13, A, B_CORRUPT, C);
    CheckResult r = new ReplicaDivergence().check(h.analysis());
    assertEquals(Validity.FALSE, r.valid());
    assertEquals(1, r.anomalyCount());
    Anomaly a = r.anomalies().get(0);
    assertEquals(List.of(5L), a.offsets());
    assertEquals(List.of(1, 2), a.details().get("nodes"));
  }

  @Test
  void shouldIgnoreDifferencesAtOrAboveHighWatermark() {
    // Node 2's batch at 10 differs, but node 1's HW is 10: that batch is not committed on node 1.
    Histories h = history().replica(1, T0, 10, A, B, C).replica(2, T0, 12, A, B, C_OTHER);
    assertEquals(Validity.TRUE, new ReplicaDivergence().check(h.analysis()).valid());
  }

  @Test
  void shouldReportCommittedBatchChangingOnOneNodeOverTime() {
    Histories h = history().replica(1, T0, 10, A, B).replica(1, T0, 10, A, B_CORRUPT);
    assertEquals(Validity.FALSE, new ReplicaDivergence().check(h.analysis()).valid());
  }

  @Test
  void shouldBeUnknownWithoutSnapshots() {
    assertEquals(Validity.UNKNOWN, new ReplicaDivergence().check(history().analysis()).valid());
    assertEquals(Validity.UNKNOWN, new LeaderEpochMonotonic().check(history().analysis()).valid());
  }

  @Test
  void shouldPassGrowingEpochsWithOneLeaderEach() {
    Histories h =
        history()
            .epoch(1, T0, 1, 1)
            .epoch(2, T0, 1, 1)
            .epoch(1, T0, 2, 2)
            .epoch(2, T0, 2, 2)
            .replica(1, T0, 13, A, B, C);
    CheckResult r = new LeaderEpochMonotonic().check(h.analysis());
    assertEquals(Validity.TRUE, r.valid(), () -> r.anomalies().toString());
  }

  @Test
  void shouldReportEpochGoingBackwardsOnANode() {
    Histories h = history().epoch(1, T0, 1, 3).epoch(1, T0, 2, 2);
    CheckResult r = new LeaderEpochMonotonic().check(h.analysis());
    assertEquals(1, r.anomalyCount());
    assertEquals("went-backwards", r.anomalies().get(0).details().get("rule"));
  }

  @Test
  void shouldReportTwoLeadersInOneEpoch() {
    Histories h = history().epoch(1, T0, 1, 4).epoch(2, T0, 2, 4);
    CheckResult r = new LeaderEpochMonotonic().check(h.analysis());
    assertEquals(1, r.anomalyCount());
    assertEquals("two-leaders", r.anomalies().get(0).details().get("rule"));
  }

  @Test
  void shouldReportBatchEpochDecreasingAlongTheLog() {
    Histories h =
        history().replica(1, T0, 13, new BatchSummary(0, 4, 3, 1), new BatchSummary(5, 9, 2, 2));
    CheckResult r = new LeaderEpochMonotonic().check(h.analysis());
    assertEquals(1, r.anomalyCount());
    assertEquals("batch-epochs", r.anomalies().get(0).details().get("rule"));
  }
}
