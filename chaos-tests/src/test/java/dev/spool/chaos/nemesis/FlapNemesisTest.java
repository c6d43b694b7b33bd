package dev.spool.chaos.nemesis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class FlapNemesisTest {
  private static final long MS = 1_000_000L;
  private static final TopicPartition TP = new TopicPartition("t", 0);

  private static NemesisRunner runner(RecordingCluster c, PlannedFault f, List<FaultWindow> seen) {
    ScheduleConfig config =
        ScheduleConfig.defaults(1, EnumSet.allOf(NemesisFamily.class), 60_000, List.of(TP));
    return new NemesisRunner(
        new Schedule(1, config, List.of(f), Set.of()), List.of(new FlapNemesis(c, c)), seen::add);
  }

  @Test
  void shouldStopTheNodeOneSecondOfEveryThreeAndLeaveItRunningAtTheHeal() {
    RecordingCluster c = RecordingCluster.combined(3).leader(TP, 2, 2, 1, 3);
    List<FaultWindow> seen = new ArrayList<>();
    NemesisRunner r =
        runner(
            c,
            new PlannedFault(
                0,
                null,
                FaultKind.INTERMITTENT_PAUSE,
                new Target.PartitionLeader(TP),
                0,
                7_500,
                Map.of()),
            seen);
    for (long t = 0; t <= 7_500; t += 100) {
      r.tick(t * MS);
    }
    // Stopped at 0, running at 1 s, stopped at 3 s, running at 4 s, stopped at 6 s, running at
    // 7 s; the heal at 7.5 s finds it running and sends nothing.
    assertEquals(
        List.of("STOP n2", "CONT n2", "STOP n2", "CONT n2", "STOP n2", "CONT n2"), c.calls);
    assertEquals(List.of("n2"), seen.get(seen.size() - 1).targets());
    assertTrue(r.idle());
  }

  @Test
  void shouldCutAndHealTheNodesLinksInTurnAndEndHealed() {
    RecordingCluster c = RecordingCluster.combined(3);
    List<FaultWindow> seen = new ArrayList<>();
    NemesisRunner r =
        runner(
            c,
            new PlannedFault(
                0,
                null,
                FaultKind.FLAPPING_LINK,
                new Target.RandomNode(0),
                0,
                2_500,
                Map.of("cutMs", 500L, "healedMs", 500L)),
            seen);
    r.tick(0);
    String node = seen.get(0).targets().get(0);
    int id = Integer.parseInt(node.substring(1));
    // Cut: both directions between the node and each other node, on every plane.
    assertEquals(2 * 2 * Grudge.ALL_PLANES.size(), c.dropped.size());
    assertTrue(
        c.dropped.stream().allMatch(l -> l.from() == id || l.to() == id), c.dropped.toString());
    int cuts = 1;
    boolean wasCut = true;
    for (long t = 100; t < 2_500; t += 100) {
      r.tick(t * MS);
      boolean cut = !c.dropped.isEmpty();
      if (cut && !wasCut) {
        cuts++;
      }
      wasCut = cut;
    }
    assertEquals(3, cuts, "cut at 0, 1 and 2 s; healed between");
    r.tick(2_500 * MS);
    assertTrue(c.dropped.isEmpty(), "the heal leaves every link up");
    assertTrue(r.idle());
  }
}
