package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.message.ControllerReply;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("unit")
class TopicDecisionsTest {
  private final ControllerSettings settings = QuorumConfig.defaultControllerSettings();
  private ImageFixture fx;

  @BeforeEach
  void setUp() {
    fx = new ImageFixture().brokers(1, 2, 3);
  }

  private static CreateTopicsRequest.Topic.Builder topic(String name, int partitions, int rf) {
    return CreateTopicsRequest.Topic.newBuilder()
        .setName(name)
        .setNumPartitions(partitions)
        .setReplicationFactor(rf);
  }

  private CreateTopicsResponse.Result create(CreateTopicsRequest.Topic.Builder t) {
    return createAll(CreateTopicsRequest.newBuilder().addTopics(t).build()).getTopics(0);
  }

  private CreateTopicsResponse createAll(CreateTopicsRequest req) {
    MetadataImage before = fx.image();
    Decision d = TopicDecisions.createTopics(req, before, settings, new Random(7));
    ControllerReply r = Decisions.commit(fx, d);
    boolean anyOk =
        r.getCreateTopics().getTopicsList().stream()
            .anyMatch(x -> x.getErrorCode() == ErrorCode.NONE);
    if (!anyOk || req.getValidateOnly()) {
      assertTrue(fx.image().sameContent(before), "a refused request changes nothing");
    }
    return r.getCreateTopics();
  }

  @Test
  void shouldCreateATopicWithBalancedLeadersAndFullIsr() {
    CreateTopicsResponse.Result r =
        create(topic("orders", 6, 3).putConfigs("retention.ms", "1000"));
    assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
    TopicImage t = fx.image().topic("orders");
    assertEquals(r.getTopicId(), t.id());
    assertEquals(6, t.partitionCount());
    assertEquals(Map.of("retention.ms", "1000"), t.configs());
    for (PartitionState p : t.partitions()) {
      assertEquals(p.replicas(), p.isr());
      assertEquals(p.replicas().get(0), p.leader());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", ".", "..", "has space", "slash/", "ü"})
  void shouldRejectAnInvalidTopicName(String name) {
    assertEquals(ErrorCode.INVALID_TOPIC, create(topic(name, 1, 1)).getErrorCode());
  }

  @Test
  void shouldRejectATooLongNameButAcceptTheLongestLegalOne() {
    assertEquals(ErrorCode.INVALID_TOPIC, create(topic("a".repeat(250), 1, 1)).getErrorCode());
    assertEquals(ErrorCode.NONE, create(topic("a".repeat(249), 1, 1)).getErrorCode());
  }

  @Test
  void shouldRejectAnExistingTopic() {
    create(topic("t", 1, 1));
    assertEquals(ErrorCode.TOPIC_ALREADY_EXISTS, create(topic("t", 1, 1)).getErrorCode());
  }

  @Test
  void shouldRejectATopicNamedTwiceInOneRequest() {
    CreateTopicsResponse r =
        createAll(
            CreateTopicsRequest.newBuilder()
                .addTopics(topic("t", 1, 1))
                .addTopics(topic("t", 1, 1))
                .build());
    assertEquals(ErrorCode.INVALID_REQUEST, r.getTopics(0).getErrorCode());
    assertEquals(ErrorCode.INVALID_REQUEST, r.getTopics(1).getErrorCode());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -2, 10_001})
  void shouldRejectAPartitionCountOutOfRange(int partitions) {
    assertEquals(ErrorCode.INVALID_PARTITIONS, create(topic("t", partitions, 1)).getErrorCode());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -3, 4})
  void shouldRejectAReplicationFactorOutOfRange(int rf) {
    assertEquals(ErrorCode.INVALID_REPLICATION_FACTOR, create(topic("t", 1, rf)).getErrorCode());
  }

  @Test
  void shouldRejectAReplicationFactorAboveTheLiveBrokers() {
    fx.fence(3);
    assertEquals(ErrorCode.INVALID_REPLICATION_FACTOR, create(topic("t", 1, 3)).getErrorCode());
  }

  @Test
  void shouldCapTheDefaultReplicationFactorByLiveBrokersAndUseTheDefaultPartitionCount() {
    fx.fence(3);
    CreateTopicsResponse.Result r = create(topic("t", -1, -1));
    assertEquals(ErrorCode.NONE, r.getErrorCode());
    assertEquals(2, r.getReplicationFactor());
    assertEquals(settings.defaultNumPartitions(), r.getNumPartitions());
  }

  @Test
  void shouldRejectUnknownConfigKeysAndBadValues() {
    assertEquals(
        ErrorCode.INVALID_CONFIG,
        create(topic("t", 1, 1).putConfigs("retention.msx", "1")).getErrorCode());
    assertEquals(
        ErrorCode.INVALID_CONFIG,
        create(topic("t", 1, 1).putConfigs("retention.ms", "soon")).getErrorCode());
    assertEquals(
        ErrorCode.INVALID_CONFIG,
        create(topic("t", 1, 1).putConfigs("min.insync.replicas", "0")).getErrorCode());
  }

  @Test
  void shouldValidateOnlyWithoutWriting() {
    CreateTopicsResponse r =
        createAll(
            CreateTopicsRequest.newBuilder()
                .addTopics(topic("t", 3, 3))
                .setValidateOnly(true)
                .build());
    assertEquals(ErrorCode.NONE, r.getTopics(0).getErrorCode());
    assertEquals(null, fx.image().topic("t"));
  }

  @Test
  void shouldCreateWithAnExplicitAssignmentAndRejectAGappyOne() {
    CreateTopicsResponse.Result ok =
        create(
            CreateTopicsRequest.Topic.newBuilder()
                .setName("x")
                .setNumPartitions(-1)
                .setReplicationFactor(-1)
                .addAssignments(
                    CreateTopicsRequest.Assignment.newBuilder()
                        .setPartition(0)
                        .addReplicas(3)
                        .addReplicas(1))
                .addAssignments(
                    CreateTopicsRequest.Assignment.newBuilder()
                        .setPartition(1)
                        .addReplicas(2)
                        .addReplicas(3)));
    assertEquals(ErrorCode.NONE, ok.getErrorCode(), ok.getErrorMessage());
    assertEquals(3, fx.image().partitions("x").get(0).leader());
    CreateTopicsResponse.Result gap =
        create(
            CreateTopicsRequest.Topic.newBuilder()
                .setName("y")
                .setNumPartitions(-1)
                .setReplicationFactor(-1)
                .addAssignments(
                    CreateTopicsRequest.Assignment.newBuilder().setPartition(1).addReplicas(2)));
    assertEquals(ErrorCode.INVALID_PARTITIONS, gap.getErrorCode());
  }

  @Test
  void shouldDeleteATopicAndRejectAnUnknownOne() {
    create(topic("t", 2, 2));
    MetadataImage before = fx.image();
    ControllerReply r =
        Decisions.commit(
            fx,
            TopicDecisions.deleteTopics(
                DeleteTopicsRequest.newBuilder().addNames("t").addNames("nope").build(), before));
    assertEquals(ErrorCode.NONE, r.getDeleteTopics().getTopics(0).getErrorCode());
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, r.getDeleteTopics().getTopics(1).getErrorCode());
    assertEquals(null, fx.image().topic("t"));
  }

  @Test
  void shouldAlterConfigsAndRejectBadOnesWithoutChangingAnything() {
    create(topic("t", 1, 1).putConfigs("retention.ms", "5"));
    ControllerReply ok =
        Decisions.commit(
            fx,
            TopicDecisions.alterConfigs(
                AlterConfigsRequest.newBuilder()
                    .addTopics(
                        AlterConfigsRequest.Topic.newBuilder()
                            .setName("t")
                            .putSet("segment.ms", "100")
                            .addDelete("retention.ms"))
                    .build(),
                fx.image()));
    assertEquals(ErrorCode.NONE, ok.getAlterConfigs().getTopics(0).getErrorCode());
    assertEquals(Map.of("segment.ms", "100"), fx.image().topic("t").configs());
    MetadataImage before = fx.image();
    ControllerReply bad =
        Decisions.commit(
            fx,
            TopicDecisions.alterConfigs(
                AlterConfigsRequest.newBuilder()
                    .addTopics(
                        AlterConfigsRequest.Topic.newBuilder()
                            .setName("t")
                            .putSet("segment.ms", "-5"))
                    .addTopics(
                        AlterConfigsRequest.Topic.newBuilder()
                            .setName("nope")
                            .putSet("segment.ms", "5"))
                    .build(),
                before));
    assertEquals(ErrorCode.INVALID_CONFIG, bad.getAlterConfigs().getTopics(0).getErrorCode());
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, bad.getAlterConfigs().getTopics(1).getErrorCode());
    assertTrue(fx.image().sameContent(before));
  }

  @Test
  void shouldReportTopicCreatedConcurrentlyAsAlreadyExistingAtApplyTime() {
    MetadataImage before = fx.image();
    Decision a =
        TopicDecisions.createTopics(
            CreateTopicsRequest.newBuilder().addTopics(topic("t", 1, 1)).build(),
            before,
            settings,
            new Random(1));
    Decision b =
        TopicDecisions.createTopics(
            CreateTopicsRequest.newBuilder().addTopics(topic("t", 2, 1)).build(),
            before,
            settings,
            new Random(2));
    Decisions.commit(fx, a);
    ControllerReply rb = Decisions.commit(fx, b);
    assertEquals(ErrorCode.TOPIC_ALREADY_EXISTS, rb.getCreateTopics().getTopics(0).getErrorCode());
    assertEquals(1, fx.image().topic("t").partitionCount());
    assertEquals(
        List.of(), fx.image().topics().stream().filter(x -> x.partitionCount() == 2).toList());
  }
}
