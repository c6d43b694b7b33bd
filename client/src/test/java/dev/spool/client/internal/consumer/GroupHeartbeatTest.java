package dev.spool.client.internal.consumer;

import static dev.spool.client.internal.consumer.GroupTestClients.T0;
import static dev.spool.client.internal.consumer.GroupTestClients.T1;
import static dev.spool.client.internal.consumer.GroupTestClients.pollUntil;
import static dev.spool.client.testing.ScriptedCoordinator.owned;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRebalanceListener;
import dev.spool.client.testing.ScriptedCoordinator;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ConsumerGroupHeartbeatRequest;
import dev.spool.protocol.message.MetadataRequest;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The membership half of a group consumer ({@link GroupHeartbeat}) against a coordinator the test
 * scripts: which epoch it sends, what it acknowledges, how it reacts to fencing, to a poll timeout
 * and to a refusal.
 */
@Timeout(60)
@Tag("integration")
class GroupHeartbeatTest {
  private final GroupTestClients g = new GroupTestClients();

  @AfterEach
  void tearDown() throws Exception {
    g.close();
  }

  @Test
  void joinsAtEpochZeroThenHeartbeatsAtItsEpochAndAcknowledgesWhatItOwns() throws Exception {
    g.coordinator.assign(3, Set.of(T0, T1));
    Consumer c = g.consumer("max.poll.interval.ms", "45000");
    c.subscribe(List.of("t"), g.listener());
    c.poll(Duration.ofMillis(10));
    ConsumerGroupHeartbeatRequest join = g.coordinator.awaitHeartbeat(r -> true, 5000);
    assertEquals(0, join.getMemberEpoch());
    assertEquals(List.of("t"), join.getSubscription().getTopicNamesList());
    assertEquals(45000, join.getRebalanceTimeoutMs());
    assertTrue(owned(join).isEmpty(), "a joining member owns nothing");

    pollUntil(c, () -> c.assignment().equals(Set.of(T0, T1)));
    ConsumerGroupHeartbeatRequest ack =
        g.coordinator.awaitHeartbeat(r -> !owned(r).isEmpty(), 5000);
    assertEquals(3, ack.getMemberEpoch(), "heartbeats carry the epoch the coordinator gave");
    assertEquals(Set.of(T0, T1), owned(ack));
    assertEquals(join.getMemberId(), ack.getMemberId());
    assertFalse(ack.hasSubscription(), "an unchanged subscription is not sent again");
    assertEquals(List.of("assigned [t-0, t-1]"), g.coordinator.events());
  }

  @ParameterizedTest
  @EnumSource(
      value = ErrorCode.class,
      names = {"FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID"})
  void aFencedMemberLosesItsPartitionsWithoutCommittingAndRejoinsAtEpochZero(ErrorCode fence)
      throws Exception {
    g.coordinator.assign(2, Set.of(T0, T1));
    Consumer c = g.consumer("auto.commit.interval.ms", "600000");
    c.subscribe(List.of("t"), g.listener());
    pollUntil(c, () -> c.assignment().size() == 2);
    g.produce(T0, 4);
    pollUntil(c, () -> c.position(T0) == 4);
    String memberId = g.coordinator.awaitHeartbeat(r -> true, 5000).getMemberId();

    g.coordinator.failNextHeartbeatThenAssign(fence, 7, Set.of(T1));
    pollUntil(c, () -> g.coordinator.events().contains("assigned [t-1]"));
    // Lost, not revoked: someone else may own them, so nothing consumed is committed.
    assertEquals(
        List.of("assigned [t-0, t-1]", "lost [t-0, t-1]", "assigned [t-1]"),
        g.coordinator.events());
    assertTrue(g.coordinator.committed().isEmpty(), "a lost partition is not committed");
    g.coordinator.clearHeartbeats();
    ConsumerGroupHeartbeatRequest after =
        g.coordinator.awaitHeartbeat(r -> !owned(r).isEmpty(), 5000);
    assertEquals(memberId, after.getMemberId(), "the member id survives a rejoin");
    assertEquals(7, after.getMemberEpoch());
    assertEquals(Set.of(T1), owned(after));
  }

  @Test
  void anAcknowledgementMadeWhileAHeartbeatIsInFlightIsSentAsSoonAsItsAnswerComes()
      throws Exception {
    g.coordinator.assign(1, Set.of(T0, T1));
    ScriptedCoordinator.Hold[] hold = new ScriptedCoordinator.Hold[1];
    Consumer c = g.consumer("enable.auto.commit", "false");
    ConsumerRebalanceListener logging = g.listener();
    c.subscribe(
        List.of("t"),
        new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // The revocation is still being applied when the next heartbeat goes out.
            hold[0].awaitReceived();
            logging.onPartitionsRevoked(partitions);
          }

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            logging.onPartitionsAssigned(partitions);
          }
        });
    pollUntil(c, () -> c.assignment().size() == 2);

    // t-0 moves away. The heartbeat after that answer (epoch 2, still owning both) is held at the
    // coordinator while the application revokes t-0 and acknowledges; its answer then asks for
    // the next heartbeat only an hour later. The coordinator must still hear of the release now:
    // the member the partition moves to waits for it.
    hold[0] = g.coordinator.holdHeartbeat(r -> r.getMemberEpoch() == 2, 3_600_000);
    g.coordinator.assign(2, Set.of(T1));
    pollUntil(c, () -> c.assignment().equals(Set.of(T1)));
    g.coordinator.clearHeartbeats();
    hold[0].release();
    ConsumerGroupHeartbeatRequest ack =
        g.coordinator.awaitHeartbeat(r -> owned(r).equals(Set.of(T1)), 5000);
    assertEquals(2, ack.getMemberEpoch());
    assertEquals(List.of("assigned [t-0, t-1]", "revoked [t-0]"), g.coordinator.events());
  }

  @Test
  void theSubscribedTopicsMetadataIsFetchedBeforeAnyPartitionIsAssigned() {
    // The coordinator assigns nothing: only the subscription can have asked for t's metadata,
    // which the member then has at hand when its first partitions are granted.
    Consumer c = g.consumer();
    c.subscribe(List.of("t"), g.listener());
    pollUntil(
        c,
        () ->
            g.cluster.brokers().stream()
                .flatMap(b -> b.received(ApiKey.METADATA).stream())
                .anyMatch(r -> r.body(MetadataRequest.class).getTopicsList().contains("t")));
    assertTrue(c.assignment().isEmpty());
  }

  @Test
  void aMemberThatStopsPollingLeavesAndRejoinsAtItsNextPoll() throws Exception {
    g.coordinator.assign(4, Set.of(T0, T1));
    Consumer c = g.consumer("max.poll.interval.ms", "1000", "enable.auto.commit", "false");
    c.subscribe(List.of("t"), g.listener());
    pollUntil(c, () -> c.assignment().size() == 2);
    g.coordinator.clearHeartbeats();

    // No poll from here on: the I/O thread must leave on its own.
    ConsumerGroupHeartbeatRequest leave =
        g.coordinator.awaitHeartbeat(r -> r.getMemberEpoch() < 0, 5000);
    assertEquals(-1, leave.getMemberEpoch());

    g.coordinator.clearHeartbeats();
    pollUntil(c, () -> g.coordinator.events().size() >= 3);
    assertEquals(
        List.of("assigned [t-0, t-1]", "lost [t-0, t-1]", "assigned [t-0, t-1]"),
        g.coordinator.events());
    assertEquals(0, g.coordinator.awaitHeartbeat(r -> true, 5000).getMemberEpoch());
  }

  @Test
  void aRefusedHeartbeatEndsTheMembershipAndPollThrowsItsError() {
    g.coordinator.failNextHeartbeat(ErrorCode.GROUP_MAX_SIZE_REACHED);
    Consumer c = g.consumer();
    c.subscribe(List.of("t"), g.listener());
    SpoolException e =
        assertThrows(SpoolException.class, () -> pollUntil(c, () -> false), "poll throws");
    assertEquals(ErrorCode.GROUP_MAX_SIZE_REACHED, e.errorCode());
    assertTrue(c.assignment().isEmpty());
  }

  @Test
  void closeLeavesWithEpochMinusOneAndAStaticMemberWithMinusTwo() throws Exception {
    g.coordinator.assign(1, Set.of(T0));
    Consumer dynamic = g.consumer();
    dynamic.subscribe(List.of("t"), g.listener());
    pollUntil(dynamic, () -> dynamic.assignment().size() == 1);
    dynamic.close();
    assertEquals(
        -1, g.coordinator.awaitHeartbeat(r -> r.getMemberEpoch() < 0, 5000).getMemberEpoch());
    g.coordinator.clearHeartbeats();

    Consumer stat = g.consumer("group.instance.id", "host-7");
    stat.subscribe(List.of("t"), g.listener());
    ConsumerGroupHeartbeatRequest join =
        g.coordinator.awaitHeartbeat(r -> r.getMemberEpoch() == 0, 5000);
    assertEquals("host-7", join.getInstanceId());
    pollUntil(stat, () -> stat.assignment().size() == 1);
    stat.close();
    // -2: "leaving for now", the coordinator keeps its partitions for the session timeout.
    assertEquals(
        -2, g.coordinator.awaitHeartbeat(r -> r.getMemberEpoch() < 0, 5000).getMemberEpoch());
  }
}
