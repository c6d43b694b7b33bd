package dev.spool.chaos.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.PlannedFault;
import dev.spool.chaos.nemesis.Schedule;
import dev.spool.common.TopicPartition;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fixed scenarios of the chaos tier: well-formed, reproducible, and together covering every
 * fault kind.
 */
@Tag("unit")
class ScenariosTest {
  private static final List<TopicPartition> TPS =
      List.of(
          new TopicPartition("chaos-0", 0),
          new TopicPartition("chaos-0", 1),
          new TopicPartition("chaos-1", 0),
          new TopicPartition("chaos-1", 1));

  private static Schedule schedule(String name, long seed) {
    return Scenarios.options(Scenarios.get(name), seed, Path.of("x"), "cmd").schedule().apply(TPS);
  }

  @Test
  void shouldCoverEveryFaultKindAcrossTheScenarios() {
    Set<FaultKind> covered = EnumSet.noneOf(FaultKind.class);
    for (String name : Scenarios.all().keySet()) {
      schedule(name, 1).faults().forEach(f -> covered.add(f.kind()));
    }
    assertEquals(EnumSet.allOf(FaultKind.class), covered);
  }

  @Test
  void shouldHealEveryFaultBeforeTheEndAndNestOnlyInsideAParent() {
    for (Scenarios.Scenario s : Scenarios.all().values()) {
      Schedule sch = schedule(s.name(), 7);
      PlannedFault previousTop = null;
      for (PlannedFault f : sch.faults()) {
        assertTrue(
            f.endMs() <= s.duration().toMillis() - 3_000,
            s.name() + ": " + f + " leaves time to recover");
        if (f.parentId() == null) {
          assertTrue(
              previousTop == null || f.startMs() >= previousTop.endMs(),
              s.name() + ": " + f + " overlaps");
          previousTop = f;
        } else {
          PlannedFault parent = sch.faults().get(f.parentId());
          assertTrue(
              f.startMs() >= parent.startMs() && f.endMs() <= parent.endMs(), s.name() + ": " + f);
        }
        if (f.kind() == FaultKind.PAUSE) {
          assertTrue(f.durationMs() >= 4_000, "a pause outlasts the 1.5 s session timeout: " + f);
        }
      }
    }
  }

  @Test
  void shouldPickTheSameTargetsForTheSameSeedAndOthersForAnother() {
    assertEquals(schedule("disk", 5).faults(), schedule("disk", 5).faults());
    assertNotEquals(schedule("disk", 5).faults(), schedule("disk", 6).faults());
  }

  @Test
  void shouldOnlyMakeTheLeaderLossScenarioUnsafe() {
    for (Scenarios.Scenario s : Scenarios.all().values()) {
      assertEquals(
          s.name().startsWith("unsafe"),
          Scenarios.options(s, 1, Path.of("x"), "cmd").unsafe(),
          s.name());
    }
  }
}
