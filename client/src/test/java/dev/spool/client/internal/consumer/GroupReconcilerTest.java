package dev.spool.client.internal.consumer;

import static dev.spool.client.internal.consumer.GroupTestClients.T0;
import static dev.spool.client.internal.consumer.GroupTestClients.T1;
import static dev.spool.client.internal.consumer.GroupTestClients.T2;
import static dev.spool.client.internal.consumer.GroupTestClients.pollUntil;
import static dev.spool.client.testing.ScriptedCoordinator.owned;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.testing.ScriptedCoordinator.Committed;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The application-thread half of a group consumer ({@link GroupReconciler}) against a coordinator
 * the test scripts: the order of commit, revocation and assignment when the assignment moves,
 * positions restored from committed offsets, and automatic commits.
 */
@Timeout(60)
@Tag("integration")
class GroupReconcilerTest {
  private final GroupTestClients g = new GroupTestClients();

  @AfterEach
  void tearDown() throws Exception {
    g.close();
  }

  @Test
  void commitsThenRevokesThenAssignsAndResumesAnAddedPartitionAtItsCommittedOffset()
      throws Exception {
    g.produce(T0, 3);
    g.produce(T2, 5);
    g.coordinator.preset(T2, 2);
    g.coordinator.assign(1, Set.of(T0, T1));
    Consumer c = g.consumer("auto.commit.interval.ms", "600000");
    c.subscribe(List.of("t"), g.listener());
    pollUntil(c, () -> c.assignment().size() == 2 && c.position(T0) == 3);

    // One step moves t-0 away and brings t-2: revoke (after committing t-0) before assigning.
    g.coordinator.assign(2, Set.of(T1, T2));
    List<ConsumerRecord> after = pollUntil(c, () -> c.assignment().contains(T2));
    after.addAll(pollUntil(c, () -> c.position(T2) == 5));
    assertEquals(
        List.of("assigned [t-0, t-1]", "commit t-0@3", "revoked [t-0]", "assigned [t-2]"),
        g.coordinator.events());
    assertEquals(new Committed(3, 0), g.coordinator.committed().get(T0));
    List<Long> t2 = after.stream().filter(r -> r.partition() == 2).map(r -> r.offset()).toList();
    assertEquals(List.of(2L, 3L, 4L), t2, "t-2 resumes at its committed offset 2");
    g.coordinator.clearHeartbeats();
    assertEquals(
        Set.of(T1, T2),
        owned(g.coordinator.awaitHeartbeat(r -> r.getMemberEpoch() == 2, 5000)),
        "the member acknowledges the new assignment at the new epoch");
  }

  @Test
  void autoCommitCommitsConsumedPositionsEveryInterval() {
    g.coordinator.assign(1, Set.of(T0));
    Consumer c = g.consumer("auto.commit.interval.ms", "100");
    c.subscribe(List.of("t"), g.listener());
    pollUntil(c, () -> c.assignment().size() == 1);
    g.produce(T0, 3);
    pollUntil(c, () -> new Committed(3, 0).equals(g.coordinator.committed().get(T0)));
    g.produce(T0, 2);
    pollUntil(c, () -> new Committed(5, 0).equals(g.coordinator.committed().get(T0)));
  }

  @Test
  void closeCommitsConsumedPositionsBeforeRevoking() throws Exception {
    g.coordinator.assign(1, Set.of(T0, T1));
    Consumer c = g.consumer("auto.commit.interval.ms", "600000");
    c.subscribe(List.of("t"), g.listener());
    g.produce(T1, 4);
    pollUntil(c, () -> c.assignment().size() == 2 && c.position(T1) == 4);
    c.close();
    List<String> events = g.coordinator.events();
    assertEquals(4, events.size(), events.toString());
    assertEquals("assigned [t-0, t-1]", events.get(0));
    // One commit request of both positions (t-0's is its reset position 0), then the revocation.
    assertEquals(Set.of("commit t-0@0", "commit t-1@4"), Set.copyOf(events.subList(1, 3)));
    assertEquals("revoked [t-0, t-1]", events.get(3));
    assertEquals(
        -1, g.coordinator.awaitHeartbeat(r -> r.getMemberEpoch() < 0, 5000).getMemberEpoch());
  }

  @Test
  void withoutAutoCommitNeitherRevocationNorCloseCommits() {
    g.produce(T0, 3);
    g.coordinator.assign(1, Set.of(T0, T1));
    Consumer c = g.consumer("enable.auto.commit", "false", "auto.commit.interval.ms", "1");
    c.subscribe(List.of("t"), g.listener());
    pollUntil(c, () -> c.assignment().size() == 2 && c.position(T0) == 3);
    g.coordinator.assign(2, Set.of(T1));
    pollUntil(c, () -> c.assignment().equals(Set.of(T1)));
    c.close();
    assertEquals(
        List.of("assigned [t-0, t-1]", "revoked [t-0]", "revoked [t-1]"), g.coordinator.events());
    assertTrue(g.coordinator.committed().isEmpty());
  }
}
