package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.cli.ReassignmentProgress.Catchup;
import dev.spool.cli.ReassignmentProgress.State;
import dev.spool.client.Reassignments;
import dev.spool.client.ReplicaLog;
import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ReassignmentProgressTest {
  private static final TopicPartition A0 = new TopicPartition("a", 0);
  private static final TopicPartition A1 = new TopicPartition("a", 1);
  private static final TopicPartition A2 = new TopicPartition("a", 2);

  private static ReplicaLog log(int broker, TopicPartition tp, long logEndOffset) {
    return new ReplicaLog(
        broker, tp, 0, 1, 0, logEndOffset, logEndOffset, false, 0, 0, 0, 0, -1, 0, 0, "");
  }

  private static final ReassignmentPlan PLAN =
      ReassignmentPlan.of(Map.of(A0, List.of(1, 2, 4), A1, List.of(2, 4, 5), A2, List.of(4, 5, 1)));

  @Test
  void saysCompleteInProgressOrNotStartedPerPartition() {
    Reassignments moving =
        new Reassignments(
            List.of(
                new Reassignments.Reassignment(
                    A1, List.of(2, 4, 5, 3), List.of(4, 5), List.of(3), List.of(2, 3), 2)),
            1024);
    List<ReassignmentProgress.Partition> parts =
        ReassignmentProgress.ofPlan(
            PLAN,
            Map.of(A0, List.of(1, 2, 4), A1, List.of(2, 4, 5, 3), A2, List.of(1, 5, 4)),
            moving,
            List.of(log(2, A1, 1000), log(3, A1, 1000), log(4, A1, 812)));
    assertEquals(
        List.of(State.COMPLETE, State.IN_PROGRESS, State.NOT_STARTED),
        parts.stream().map(ReassignmentProgress.Partition::state).toList());
    ReassignmentProgress.Partition a1 = parts.get(1);
    assertEquals(List.of(new Catchup(4, 812, 1000), new Catchup(5, -1, 1000)), a1.progress());
    assertEquals(List.of(3), a1.removing());
    assertEquals("broker 4: 812/1000 (81%)", a1.progress().get(0).describe());
    assertEquals("broker 5: no log yet", a1.progress().get(1).describe());
    // a different order of the same brokers is not the plan: the preferred leader differs
    assertEquals(List.of(1, 5, 4), parts.get(2).replicas());
  }

  @Test
  void aPartitionThatNoLongerExistsHasNotStarted() {
    List<ReassignmentProgress.Partition> parts =
        ReassignmentProgress.ofPlan(PLAN, Map.of(), new Reassignments(List.of(), 0), List.of());
    parts.forEach(p -> assertEquals(State.NOT_STARTED, p.state()));
    assertEquals(List.of(), parts.get(0).replicas());
  }

  @Test
  void listsEveryReassignmentInProgressWithoutAPlan() {
    Reassignments moving =
        new Reassignments(
            List.of(
                new Reassignments.Reassignment(
                    A0, List.of(1, 2, 4), List.of(4), List.of(2), List.of(1, 2), 1),
                new Reassignments.Reassignment(
                    A2, List.of(5, 6), List.of(6), List.of(5), List.of(5), -1)),
            0);
    List<ReassignmentProgress.Partition> parts =
        ReassignmentProgress.ofAll(moving, List.of(log(1, A0, 0), log(4, A0, 0), log(6, A2, 5)));
    assertEquals(2, parts.size());
    assertEquals("broker 4: 0/0 (100%)", parts.get(0).progress().get(0).describe());
    assertEquals(List.of(new Catchup(6, 5, -1)), parts.get(1).progress());
    assertEquals(
        "broker 6: 5/? (the leader's log end is unknown)",
        parts.get(1).progress().get(0).describe());
  }
}
