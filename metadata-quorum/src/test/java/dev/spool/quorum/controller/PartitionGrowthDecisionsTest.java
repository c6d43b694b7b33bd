package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.CreatePartitionsRequest;
import dev.spool.protocol.message.CreatePartitionsResponse;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.MetadataRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class PartitionGrowthDecisionsTest {
  private final ControllerSettings settings = QuorumConfig.defaultControllerSettings();
  private ImageFixture fx;

  @BeforeEach
  void setUp() {
    fx = new ImageFixture().brokers(1, 2, 3, 4);
    fx.topic("orders", List.of(List.of(1, 2), List.of(2, 3), List.of(3, 4)));
  }

  private static CreatePartitionsRequest.Topic.Builder grow(String name, int count) {
    return CreatePartitionsRequest.Topic.newBuilder().setName(name).setCount(count);
  }

  private static CreatePartitionsRequest.Topic.Builder grow(
      String name, int count, List<List<Integer>> assignments) {
    CreatePartitionsRequest.Topic.Builder t = grow(name, count);
    assignments.forEach(
        a -> t.addAssignments(CreatePartitionsRequest.Assignment.newBuilder().addAllReplicas(a)));
    return t;
  }

  private CreatePartitionsResponse.Result one(CreatePartitionsRequest.Topic.Builder t) {
    return all(CreatePartitionsRequest.newBuilder().addTopics(t).build()).getTopics(0);
  }

  /** Decides and commits like the state machine; a request with no success changes nothing. */
  private CreatePartitionsResponse all(CreatePartitionsRequest req) {
    MetadataImage before = fx.image();
    Decision d = PartitionGrowthDecisions.createPartitions(req, before, settings, new Random(3));
    ControllerReply r = Decisions.commit(fx, d);
    boolean anyOk =
        r.getCreatePartitions().getTopicsList().stream()
            .anyMatch(x -> x.getErrorCode() == ErrorCode.NONE);
    if (!anyOk || req.getValidateOnly()) {
      assertTrue(fx.image().sameContent(before), "a refused request changes nothing");
      assertEquals(0, d.batch().getRecordsCount());
    }
    return r.getCreatePartitions();
  }

  private void assertRefused(
      CreatePartitionsRequest.Topic.Builder t, ErrorCode code, String messagePart) {
    CreatePartitionsResponse.Result r = one(t);
    assertEquals(code, r.getErrorCode(), r.getErrorMessage());
    assertTrue(r.getErrorMessage().contains(messagePart), r.getErrorMessage());
    assertEquals(3, fx.image().topic("orders").partitionCount());
  }

  @Test
  void shouldAppendPartitionsWithTheTopicsReplicationFactorLeadersAndFullIsr() {
    CreatePartitionsResponse.Result r = one(grow("orders", 7));
    assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
    assertEquals(7, r.getCount());
    TopicImage t = fx.image().topic("orders");
    assertEquals(7, t.partitionCount());
    assertEquals(List.of(1, 2), t.partition(0).replicas(), "existing partitions are untouched");
    for (PartitionState p : t.partitions().subList(3, 7)) {
      assertEquals(2, p.replicas().size(), p.toString());
      assertEquals(p.replicas(), p.isr(), p.toString());
      assertEquals(p.replicas().get(0), p.leader(), p.toString());
      assertEquals(0, p.leaderEpoch());
    }
    // 7 partitions x 2 replicas over 4 brokers: the existing replicas count as load, so every
    // broker ends with 3 or 4 replicas, as a topic created with 7 partitions would.
    Map<Integer, Integer> perBroker = new HashMap<>();
    t.partitions().forEach(p -> p.replicas().forEach(b -> perBroker.merge(b, 1, Integer::sum)));
    assertEquals(4, perBroker.size(), perBroker.toString());
    perBroker.values().forEach(n -> assertTrue(n == 3 || n == 4, perBroker.toString()));
  }

  @Test
  void shouldPlaceOnlyOnEligibleBrokers() {
    fx.fence(4);
    fx.apply(Records.brokerShutdown(3, fx.image().broker(3).epoch()));
    assertEquals(ErrorCode.NONE, one(grow("orders", 5)).getErrorCode());
    for (PartitionState p : fx.image().topic("orders").partitions().subList(3, 5)) {
      assertEquals(List.of(1, 2), p.replicas().stream().sorted().toList(), p.toString());
    }
  }

  @Test
  void shouldUseAnExplicitAssignmentInOrder() {
    CreatePartitionsResponse.Result r =
        one(grow("orders", 5, List.of(List.of(4, 1), List.of(2, 4))));
    assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
    TopicImage t = fx.image().topic("orders");
    assertEquals(List.of(4, 1), t.partition(3).replicas());
    assertEquals(4, t.partition(3).leader());
    assertEquals(List.of(2, 4), t.partition(4).replicas());
  }

  @Test
  void shouldRefuseADecreaseOrTheSameCount() {
    assertRefused(grow("orders", 2), ErrorCode.INVALID_PARTITIONS, "can only grow");
    assertRefused(grow("orders", 3), ErrorCode.INVALID_PARTITIONS, "already has 3 partitions");
    assertRefused(grow("orders", 0), ErrorCode.INVALID_PARTITIONS, "can only grow");
  }

  @Test
  void shouldRefuseMoreThanTheMaximumPartitionCount() {
    assertRefused(
        grow("orders", settings.maxPartitionsPerTopic() + 1),
        ErrorCode.INVALID_PARTITIONS,
        "at most");
  }

  @Test
  void shouldRefuseAnUnknownTopic() {
    CreatePartitionsResponse.Result r = one(grow("nope", 4));
    assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, r.getErrorCode());
    assertTrue(r.getErrorMessage().contains("'nope' does not exist"), r.getErrorMessage());
  }

  @Test
  void shouldRefuseBadExplicitAssignments() {
    assertRefused(
        grow("orders", 5, List.of(List.of(1, 2))),
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "needs 2 assignments, got 1");
    assertRefused(
        grow("orders", 4, List.of(List.of(1, 9))),
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "broker 9, which is not registered");
    assertRefused(
        grow("orders", 4, List.of(List.of(2, 2))),
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "repeats a broker");
    assertRefused(
        grow("orders", 4, List.of(List.of(1, 2, 3))),
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "replication factor is 2");
    fx.fence(3);
    assertRefused(
        grow("orders", 4, List.of(List.of(1, 3))),
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "broker 3, which is fenced");
  }

  @Test
  void shouldRefuseWhenTooFewBrokersAreLeftForTheReplicationFactor() {
    fx.fence(2);
    fx.fence(3);
    fx.fence(4);
    assertRefused(grow("orders", 4), ErrorCode.INVALID_REPLICATION_FACTOR, "only 1 brokers");
  }

  @Test
  void shouldValidateOnlyWithoutRecords() {
    CreatePartitionsResponse r =
        all(
            CreatePartitionsRequest.newBuilder()
                .setValidateOnly(true)
                .addTopics(grow("orders", 6))
                .build());
    assertEquals(ErrorCode.NONE, r.getTopics(0).getErrorCode());
    assertEquals(6, r.getTopics(0).getCount());
    assertEquals(3, fx.image().topic("orders").partitionCount());
  }

  @Test
  void shouldGrowTheGoodTopicsOfARequestAndRefuseDuplicates() {
    fx.topic("audit", List.of(List.of(1, 2, 3)));
    CreatePartitionsResponse r =
        all(
            CreatePartitionsRequest.newBuilder()
                .addTopics(grow("audit", 2))
                .addTopics(grow("orders", 4))
                .addTopics(grow("orders", 5))
                .build());
    assertEquals(ErrorCode.NONE, r.getTopics(0).getErrorCode());
    assertEquals(ErrorCode.INVALID_REQUEST, r.getTopics(1).getErrorCode());
    assertEquals(ErrorCode.INVALID_REQUEST, r.getTopics(2).getErrorCode());
    assertEquals(2, fx.image().topic("audit").partitionCount());
    assertEquals(3, fx.image().topic("audit").partition(1).replicas().size());
    assertEquals(3, fx.image().topic("orders").partitionCount());
  }

  /**
   * Two growths decided on the same image: the second's first record is no longer the next
   * partition, so the applier refuses it and the reply says so with the count that stands.
   */
  @Test
  void shouldFailTheLoserOfTwoRacingGrowthsWithoutAGap() {
    MetadataImage image = fx.image();
    CreatePartitionsRequest a =
        CreatePartitionsRequest.newBuilder().addTopics(grow("orders", 4)).build();
    CreatePartitionsRequest b =
        CreatePartitionsRequest.newBuilder().addTopics(grow("orders", 6)).build();
    Decision first = PartitionGrowthDecisions.createPartitions(a, image, settings, new Random(1));
    Decision second = PartitionGrowthDecisions.createPartitions(b, image, settings, new Random(2));
    assertEquals(
        ErrorCode.NONE,
        Decisions.commit(fx, first).getCreatePartitions().getTopics(0).getErrorCode());
    CreatePartitionsResponse.Result lost =
        Decisions.commit(fx, second).getCreatePartitions().getTopics(0);
    assertEquals(ErrorCode.INVALID_PARTITIONS, lost.getErrorCode(), lost.getErrorMessage());
    assertEquals(4, lost.getCount());
    assertEquals(4, fx.image().topic("orders").partitionCount(), "nothing of the loser added");
    assertEquals(1, second.batch().getRecordsCount());
    MetadataRecord rec = second.batch().getRecords(0);
    assertTrue(rec.hasAddPartitions(), rec.toString());
    assertEquals(3, rec.getAddPartitions().getPartitionsCount());
  }
}
