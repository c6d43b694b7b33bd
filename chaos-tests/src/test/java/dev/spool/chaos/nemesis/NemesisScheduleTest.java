package dev.spool.chaos.nemesis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.TopicPartition;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class NemesisScheduleTest {
  private static final List<TopicPartition> TPS =
      List.of(new TopicPartition("t", 0), new TopicPartition("t", 1));
  private static final long SEED = 0x5E1D;

  private static ScheduleConfig config(long seed, Set<NemesisFamily> families, long durationMs) {
    return ScheduleConfig.defaults(seed, families, durationMs, TPS);
  }

  @Test
  void shouldProduceTheSameScheduleForTheSameSeed() {
    ScheduleConfig c = config(SEED, EnumSet.allOf(NemesisFamily.class), 900_000);
    Schedule a = NemesisSchedule.generate(c);
    Schedule b = NemesisSchedule.generate(c);
    assertEquals(a, b, "seed " + SEED);
    assertEquals(a.describe(), b.describe());
    assertTrue(a.faults().size() >= 20, "a 15-minute run has many faults: " + a.faults().size());
    Schedule other =
        NemesisSchedule.generate(config(SEED + 1, EnumSet.allOf(NemesisFamily.class), 900_000));
    assertNotEquals(a.faults(), other.faults(), "another seed, another schedule");
  }

  @Test
  void shouldKeepTheMainSequenceTimeBoxedWithQuietPeriodsAndACalmEnd() {
    ScheduleConfig c = config(SEED, EnumSet.allOf(NemesisFamily.class), 900_000);
    List<PlannedFault> main =
        NemesisSchedule.generate(c).faults().stream().filter(f -> f.parentId() == null).toList();
    long previousEnd = 0;
    for (PlannedFault f : main) {
      assertTrue(
          f.startMs() - previousEnd >= c.quietMinMs(),
          "quiet period before " + f + ", seed " + SEED);
      assertTrue(f.durationMs() <= c.faultMaxMs(), f.toString());
      assertTrue(
          f.endMs() <= c.durationMs() - c.finalQuietMs(), "healed before the calm end: " + f);
      if (f.kind() == FaultKind.PAUSE) {
        assertTrue(f.durationMs() >= c.pauseMinMs(), "pause longer than the session timeout: " + f);
      }
      previousEnd = f.endMs();
    }
  }

  @Test
  void shouldComposeKillsOnlyInsideTheirParentPartition() {
    ScheduleConfig c =
        config(SEED, EnumSet.of(NemesisFamily.PARTITION, NemesisFamily.KILL), 3_600_000);
    Schedule s = NemesisSchedule.generate(c);
    List<PlannedFault> composed = s.faults().stream().filter(f -> f.parentId() != null).toList();
    assertFalse(
        composed.isEmpty(),
        "an hour with composeProbability 0.25 composes some kills, seed " + SEED);
    for (PlannedFault k : composed) {
      PlannedFault parent = s.faults().get(k.parentId());
      assertEquals(NemesisFamily.PARTITION, parent.kind().family());
      assertEquals(FaultKind.KILL, k.kind());
      assertTrue(
          k.startMs() > parent.startMs() && k.endMs() < parent.endMs(), k + " inside " + parent);
    }
  }

  @Test
  void shouldOnlyUseEnabledFamiliesAndListTheUnavailableAsSkipped() {
    ScheduleConfig c =
        config(
            SEED,
            EnumSet.of(NemesisFamily.KILL, NemesisFamily.PARTITION, NemesisFamily.DISK),
            600_000);
    Schedule s = NemesisSchedule.generate(c, EnumSet.of(NemesisFamily.KILL, NemesisFamily.DISK));
    assertEquals(Set.of(NemesisFamily.PARTITION), s.skippedFamilies());
    assertTrue(s.describe().contains("SKIPPED families [PARTITION]"), s.describe());
    assertFalse(s.faults().isEmpty());
    for (PlannedFault f : s.faults()) {
      assertTrue(
          EnumSet.of(NemesisFamily.KILL, NemesisFamily.DISK).contains(f.kind().family()),
          f.toString());
    }
  }

  @Test
  void shouldPlanNothingWithoutFamilies() {
    assertTrue(
        NemesisSchedule.generate(config(SEED, EnumSet.noneOf(NemesisFamily.class), 600_000))
            .faults()
            .isEmpty());
  }

  @Test
  void shouldSplitIntoAMinorityAndAMajorityDeterministically() {
    TargetResolver.Split s = TargetResolver.split(List.of(1, 2, 3, 4, 5), 42);
    assertEquals(2, s.minority().size());
    assertEquals(3, s.majority().size());
    assertEquals(s, TargetResolver.split(List.of(5, 4, 3, 2, 1), 42), "node order does not matter");
    assertEquals(1, TargetResolver.split(List.of(1, 2, 3), 7).minority().size());
    int[] pair = TargetResolver.pair(List.of(1, 2, 3), 5, 9);
    assertNotEquals(pair[0], pair[1]);
  }
}
