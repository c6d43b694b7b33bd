package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.TopicDescription;
import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The pure steps of {@code spool cluster drain}: the leadership reorder and the room check. */
@Tag("unit")
class DrainCommandTest {
  private static TopicDescription.PartitionDescription partition(
      List<Integer> replicas, List<Integer> isr) {
    return new TopicDescription.PartitionDescription(0, isr.get(0), 1, replicas, isr, List.of());
  }

  @Test
  void theReorderPutsAnInSyncReplicaOnALiveBrokerFirstAndTheBrokerLast() {
    // 2 is out of the ISR and 3 is fenced: 1 must lead next, then the others keep their order
    assertEquals(
        Optional.of(List.of(1, 2, 3, 4)),
        DrainCommand.leaderFirstOrder(
            partition(List.of(4, 2, 3, 1), List.of(4, 3, 1)), 4, Set.of(1, 2, 4)));
  }

  @Test
  void noReorderWhenNoOtherReplicaCouldLead() {
    assertEquals(
        Optional.empty(),
        DrainCommand.leaderFirstOrder(partition(List.of(4, 1), List.of(4)), 4, Set.of(1, 4)));
    assertEquals(
        Optional.empty(),
        DrainCommand.leaderFirstOrder(partition(List.of(4), List.of(4)), 4, Set.of(1, 4)));
  }

  @Test
  void roomNeedsALiveBrokerWithoutAReplicaForEveryPartition() {
    Map<TopicPartition, TopicDescription.PartitionDescription> named =
        Map.of(new TopicPartition("a", 0), partition(List.of(4, 1, 2), List.of(4, 1, 2)));
    assertNull(DrainCommand.roomProblem(named, 4, Set.of(1, 2, 3)));
    String problem = DrainCommand.roomProblem(named, 4, Set.of(1, 2));
    assertTrue(problem.contains("partition a-0 has replication factor 3"), problem);
  }
}
