package dev.spool.chaos.checker;

import static dev.spool.chaos.checker.Histories.T0;
import static dev.spool.chaos.checker.Histories.T1;
import static dev.spool.chaos.checker.Histories.history;
import static dev.spool.chaos.checker.Histories.pairs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The proof that each black-box checker can fail: a hand-written history with the anomaly must be
 * reported with the right details, and a near miss without it must pass.
 */
@Tag("unit")
class JepsenAnomalyCheckersTest {

  private static CheckResult run(Checker c, Histories h) {
    return c.check(h.analysis());
  }

  private static Anomaly only(CheckResult r) {
    assertEquals(Validity.FALSE, r.valid(), () -> "expected an anomaly, got " + r);
    assertEquals(1, r.anomalyCount(), () -> "expected exactly one anomaly, got " + r.anomalies());
    return r.anomalies().get(0);
  }

  private static void assertValid(CheckResult r) {
    assertEquals(Validity.TRUE, r.valid(), () -> "expected no anomaly, got " + r.anomalies());
    assertEquals(0, r.anomalyCount());
  }

  @Nested
  class LostWriteTest {
    @Test
    void shouldReportAcknowledgedWriteBelowHighestReadOffset() {
      Histories h = history().sendOkRange(0, T0, 100, 3).poll(1, T0, 0, 100, 2, 102);
      Anomaly a = only(run(new LostWrite(), h));
      assertEquals(T0, a.partition());
      assertEquals(List.of(1L), a.offsets());
      assertEquals(List.of(101L), a.values());
      assertEquals(3, a.ops().get(0), "the writer's completion is op 3");
      assertEquals(2L, a.details().get("maxReadOffset"));
    }

    @Test
    void shouldNotCallWritesAboveHighestReadOffsetLost() {
      Histories h = history().sendOkRange(0, T0, 100, 3).poll(1, T0, 0, 100, 1, 101);
      assertValid(run(new LostWrite(), h));
    }

    @Test
    void shouldNotCallIndeterminateOrFailedSendsLost() {
      // v=7 (info) and v=8 (fail) have no known offset; v=9 was read; nothing acked is missing.
      Histories h =
          history().sendInfo(0, T0, 7).sendFail(0, T0, 8).sendOk(0, T0, 9, 1).poll(1, T0, 1, 9);
      assertValid(run(new LostWrite(), h));
    }

    @Test
    void shouldJudgeEachPartitionByItsOwnHighestRead() {
      Histories h =
          history()
              .sendOkRange(0, T0, 100, 2)
              .sendOkRange(0, T1, 200, 2)
              .poll(1, Map.of(T0, pairs(1, 101), T1, pairs(0, 200)));
      Anomaly a = only(run(new LostWrite(), h));
      assertEquals(T0, a.partition());
      assertEquals(List.of(100L), a.values());
    }

    @Test
    void shouldBeUnknownWhenNothingWasRead() {
      assertEquals(Validity.UNKNOWN, run(new LostWrite(), history().sendOk(0, T0, 1, 0)).valid());
    }
  }

  @Nested
  class UnseenTest {
    @Test
    void shouldReportAcknowledgedValuesNeverRead() {
      Histories h = history().sendOkRange(0, T0, 100, 3).poll(1, T0, 0, 100);
      Anomaly a = only(run(new Unseen(), h));
      assertEquals(List.of(101L, 102L), a.values());
      assertEquals(List.of(1L, 2L), a.offsets());
      assertEquals(2, a.details().get("count"));
    }

    @Test
    void shouldPassWhenEveryAckWasRead() {
      Histories h =
          history().sendOkRange(0, T0, 100, 2).sendInfo(0, T0, 5).poll(1, T0, 0, 100, 1, 101);
      assertValid(run(new Unseen(), h));
    }

    @Test
    void shouldBeUnknownWithoutAcknowledgedSends() {
      assertEquals(Validity.UNKNOWN, run(new Unseen(), history().sendFail(0, T0, 1)).valid());
    }
  }

  @Nested
  class DuplicateTest {
    @Test
    void shouldReportValueAtTwoOffsets() {
      Histories h = history().sendOk(0, T0, 100, 0).poll(1, T0, 0, 100, 1, 101, 2, 100);
      Anomaly a = only(run(new Duplicate(), h));
      assertEquals(List.of(0L, 2L), a.offsets());
      assertEquals(List.of(100L), a.values());
      assertEquals(List.of(1, 3), a.ops(), "the send's completion and the poll that re-read it");
    }

    @Test
    void shouldNotCountTheSameOffsetReadTwiceAsDuplicate() {
      Histories h = history().sendOk(0, T0, 100, 0).poll(1, T0, 0, 100).poll(2, T0, 0, 100);
      assertValid(run(new Duplicate(), h));
    }
  }

  @Nested
  class InconsistentOffsetsTest {
    @Test
    void shouldReportConsumerReadingOtherValueThanAcknowledged() {
      Histories h = history().sendOk(0, T0, 100, 5).poll(1, T0, 5, 999);
      Anomaly a = only(run(new InconsistentOffsets(), h));
      assertEquals(List.of(5L), a.offsets());
      assertEquals(List.of(100L, 999L), a.values());
      assertEquals(List.of(1, 3), a.ops());
    }

    @Test
    void shouldReportTwoConsumersDisagreeing() {
      Histories h = history().poll(1, T0, 0, 10, 1, 11).poll(2, T0, 0, 10, 1, 12);
      Anomaly a = only(run(new InconsistentOffsets(), h));
      assertEquals(List.of(1L), a.offsets());
      assertEquals(List.of(11L, 12L), a.values());
    }

    @Test
    void shouldAcceptAgreementAndGapsInOffsets() {
      Histories h =
          history().sendOk(0, T0, 100, 0).sendOk(0, T0, 101, 7).poll(1, T0, 0, 100, 7, 101);
      assertValid(run(new InconsistentOffsets(), h));
    }
  }

  @Nested
  class NonmonotonicSendTest {
    @Test
    void shouldReportLaterSendLandingEarlier() {
      Histories h = history().sendOk(0, T0, 100, 5).sendOk(0, T0, 101, 3);
      Anomaly a = only(run(new NonmonotonicSend(), h));
      assertEquals(List.of(5L, 3L), a.offsets());
      assertEquals(List.of(100L, 101L), a.values());
      assertEquals(-1, a.details().get("delta"));
    }

    @Test
    void shouldUseWhereAnIndeterminateSendWasRead() {
      // p0's info send of 101 turns up at offset 0, before its earlier acked send at offset 1.
      Histories h =
          history().sendOk(0, T0, 100, 1).sendInfo(0, T0, 101).poll(9, T0, 0, 101, 1, 100);
      Anomaly a = only(run(new NonmonotonicSend(), h));
      assertEquals(List.of(1L, 0L), a.offsets());
    }

    @Test
    void shouldIgnoreOrderAcrossProcessesAndPartitions() {
      Histories h =
          history()
              .sendOk(0, T0, 100, 5)
              .sendOk(1, T0, 101, 3)
              .sendOk(0, T1, 102, 0)
              .sendOk(0, T0, 103, 6);
      assertValid(run(new NonmonotonicSend(), h));
    }
  }

  @Nested
  class NonmonotonicPollTest {
    @Test
    void shouldReportConsumerGoingBackwardsBetweenPolls() {
      Histories h =
          history()
              .sendOkRange(0, T0, 100, 3)
              .poll(1, T0, 0, 100, 1, 101, 2, 102)
              .poll(1, T0, 1, 101);
      Anomaly a = only(run(new NonmonotonicPoll(), h));
      assertEquals(List.of(2L, 1L), a.offsets());
      assertEquals(-1, a.details().get("delta"));
      assertEquals("between-polls", a.details().get("scope"));
      assertEquals(1L, a.details().get("process"));
    }

    @Test
    void shouldReportRereadOfSameOffset() {
      Histories h = history().poll(1, T0, 0, 100).poll(1, T0, 0, 100);
      assertEquals(0, only(run(new NonmonotonicPoll(), h)).details().get("delta"));
    }

    @Test
    void shouldReportReorderWithinOnePoll() {
      Histories h = history().sendOkRange(0, T0, 100, 2).poll(1, T0, 1, 101, 0, 100);
      assertEquals("within-poll", only(run(new NonmonotonicPoll(), h)).details().get("scope"));
    }

    @Test
    void shouldStartNewSessionAfterSeekToBeginningOrNewProcess() {
      Histories h =
          history()
              .sendOkRange(0, T0, 100, 2)
              .poll(1, T0, 0, 100, 1, 101)
              .assign(1, true, T0)
              .poll(1, T0, 0, 100, 1, 101)
              .poll(2, T0, 0, 100);
      assertValid(run(new NonmonotonicPoll(), h));
    }

    @Test
    void shouldKeepPositionWhenReassignedToSamePartitionWithoutSeek() {
      Histories h =
          history().poll(1, T0, 0, 100, 1, 101).assign(1, false, T0, T1).poll(1, T0, 0, 100);
      assertEquals(Validity.FALSE, run(new NonmonotonicPoll(), h).valid());
    }
  }

  @Nested
  class PollSkipTest {
    @Test
    void shouldReportConsumerSkippingKnownRecords() {
      Histories h =
          history()
              .sendOkRange(0, T0, 100, 5)
              .poll(1, T0, 0, 100, 1, 101)
              .poll(1, T0, 3, 103, 4, 104);
      Anomaly a = only(run(new PollSkip(), h));
      assertEquals(List.of(1L, 3L), a.offsets());
      assertEquals(List.of(102L), a.values(), "the skipped value");
      assertEquals(List.of(2L), a.details().get("skippedOffsets"));
      assertEquals(2, a.details().get("delta"));
    }

    @Test
    void shouldNotCallAHoleNobodySawASkip() {
      // Offset 2 was never acknowledged or read by anyone: no proof that a record exists there.
      Histories h =
          history()
              .sendOk(0, T0, 100, 1)
              .sendOk(0, T0, 103, 3)
              .poll(1, T0, 1, 100)
              .poll(1, T0, 3, 103);
      assertValid(run(new PollSkip(), h));
    }

    @Test
    void shouldReportSkipWithinOnePoll() {
      Histories h = history().sendOkRange(0, T0, 100, 3).poll(1, T0, 0, 100, 2, 102);
      assertEquals("within-poll", only(run(new PollSkip(), h)).details().get("scope"));
    }

    @Test
    void shouldForgetPositionWhenPartitionWasUnassigned() {
      Histories h =
          history()
              .sendOkRange(0, T0, 100, 5)
              .poll(1, T0, 0, 100)
              .assign(1, false, T1)
              .assign(1, false, T0)
              .poll(1, T0, 4, 104);
      assertValid(run(new PollSkip(), h));
    }
  }

  @Nested
  class AbortedReadTest {
    @Test
    void shouldReportReadOfDefinitelyFailedSend() {
      Histories h = history().sendFail(0, T0, 100).poll(1, T0, 0, 100);
      Anomaly a = only(run(new AbortedRead(), h));
      assertEquals(List.of(100L), a.values());
      assertEquals(List.of(1, 3), a.ops(), "writer completion, then reader");
      assertEquals("NOT_LEADER_OR_FOLLOWER", a.details().get("writerError"));
    }

    @Test
    void shouldAllowReadOfIndeterminateSend() {
      Histories h = history().sendInfo(0, T0, 100).poll(1, T0, 0, 100);
      assertValid(run(new AbortedRead(), h));
    }
  }

  @Test
  void shouldReportEveryAnomalyOnceInAHistoryWithAllOfThem() {
    Histories h =
        history()
            .sendOkRange(0, T0, 100, 4) // 100..103 at 0..3
            .sendFail(0, T0, 500)
            .sendOk(0, T0, 104, 2) // nonmonotonic send (after offset 3) and inconsistent offset 2
            .poll(1, T0, 0, 100, 2, 102, 3, 500, 4, 100); // skip 1 (lost), aborted 500, dup 100
    Verdict v = CheckerSuite.standard().check(h.build(), List.of());
    assertEquals(Validity.FALSE, v.valid());
    for (String name :
        List.of(
            "lost-write",
            "unseen",
            "duplicate",
            "inconsistent-offsets",
            "nonmonotonic-send",
            "poll-skip",
            "aborted-read")) {
      assertTrue(
          v.results().get(name).anomalyCount() > 0,
          name + " should have fired: " + v.results().get(name));
    }
    assertValid(v.results().get("nonmonotonic-poll"));
  }
}
