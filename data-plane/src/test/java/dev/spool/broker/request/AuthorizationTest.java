package dev.spool.broker.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.NewerRequestSignal;
import dev.spool.broker.security.Authorizer;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclBinding;
import dev.spool.common.AclBinding.PatternType;
import dev.spool.common.AclBinding.Permission;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.CreatePartitionsRequest;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.DeleteRecordsRequest;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DescribeClusterRequest;
import dev.spool.protocol.message.DescribeConfigsRequest;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.protocol.message.InitProducerIdRequest;
import dev.spool.protocol.message.ListOffsetsRequest;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.OffsetForLeaderEpochRequest;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.protocol.message.UnregisterBrokerRequest;
import dev.spool.protocol.message.UpdateFeaturesRequest;
import dev.spool.quorum.image.Records;
import dev.spool.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every API family checks the ACLs in the handlers both listeners share (docs/security.md#acls):
 * each refusal with Kafka's code, each allowance served as before; a spoofed follower fetch is
 * refused CLUSTER_AUTHORIZATION_FAILED; topics the caller may not DESCRIBE are hidden from
 * Metadata. Broker 1 of {@link HandlerTestBroker} leads orders-0; its quorum is down, so an allowed
 * admin request ends QUORUM_UNAVAILABLE, which shows it got past the check.
 */
@Tag("unit")
@Timeout(30)
class AuthorizationTest {
  @TempDir Path dir;

  private static final Caller ALICE = new Caller("User:alice", "10.0.0.7", "test");
  private static final Caller BROKER = new Caller("User:CN=broker2", "10.0.0.2", "test");
  private static final Caller ADMIN = new Caller("User:admin", "10.0.0.9", "test");

  private final ManualClock clock = new ManualClock(System.currentTimeMillis());
  private final Map<String, AclBinding> acls = new ConcurrentHashMap<>();
  private HandlerTestBroker broker;
  private Handlers h;

  @BeforeEach
  void setUp() {
    broker = new HandlerTestBroker(dir, clock);
    broker.apply(Records.topic("secret", "secret-id"));
    broker.publish();
    Authorizer a = new Authorizer(true, Set.of("User:admin"), false, () -> Map.copyOf(acls));
    h = Handlers.create(broker.ctx().withAuthorizer(a));
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private void allow(AclResourceType type, String name, String principal, AclOperation op) {
    acls.put(
        "id" + acls.size(),
        new AclBinding(type, name, PatternType.LITERAL, principal, "*", op, Permission.ALLOW));
  }

  private static <T> T get(java.util.concurrent.CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  private ProduceResponse produce(Caller c) throws Exception {
    var records =
        new RecordBatchBuilder(64).append(System.currentTimeMillis(), null, "v".getBytes()).build();
    return get(
        h.produce()
            .produce(
                1,
                1000,
                List.of(new ProduceHandler.PartitionRecords("orders", 0, -1, records)),
                c));
  }

  private FetchResponse fetch(int replicaId, Caller c) throws Exception {
    long epoch = replicaId < 0 ? -1 : broker.image().broker(replicaId).epoch();
    FetchRequest req =
        FetchRequest.newBuilder()
            .setReplicaId(replicaId)
            .setBrokerEpoch(epoch)
            .setMaxWaitMs(0)
            .setMinBytes(1)
            .setMaxBytes(1 << 20)
            .addTopics(
                FetchRequest.FetchTopic.newBuilder()
                    .setName("orders")
                    .addPartitions(
                        FetchRequest.FetchPartition.newBuilder()
                            .setPartition(0)
                            .setFetchOffset(0)
                            .setCurrentLeaderEpoch(-1)
                            .setLastFetchedEpoch(-1)
                            .setPartitionMaxBytes(1 << 20)))
            .build();
    BrokerResponse r = get(h.fetch().fetch(req, new NewerRequestSignal(), c));
    r.recordParts().forEach(io.netty.util.ReferenceCountUtil::release);
    return (FetchResponse) r.body();
  }

  @Test
  void produceNeedsWriteOnTheTopic() throws Exception {
    ProduceResponse.PartitionResponse p = produce(ALICE).getTopics(0).getPartitions(0);
    assertEquals(ErrorCode.TOPIC_AUTHORIZATION_FAILED, p.getErrorCode());
    assertEquals("User:alice is not authorized to WRITE topic 'orders'", p.getErrorMessage());
    allow(AclResourceType.TOPIC, "orders", "User:alice", AclOperation.WRITE);
    assertEquals(ErrorCode.NONE, produce(ALICE).getTopics(0).getPartitions(0).getErrorCode());
    assertEquals(ErrorCode.NONE, produce(ADMIN).getTopics(0).getPartitions(0).getErrorCode());
  }

  @Test
  void aConsumerFetchNeedsReadAndASpoofedFollowerFetchIsRefused() throws Exception {
    FetchResponse r = fetch(-1, ALICE);
    assertEquals(
        ErrorCode.TOPIC_AUTHORIZATION_FAILED, r.getTopics(0).getPartitions(0).getErrorCode());
    allow(AclResourceType.TOPIC, "orders", "User:alice", AclOperation.READ);
    assertEquals(ErrorCode.NONE, fetch(-1, ALICE).getTopics(0).getPartitions(0).getErrorCode());

    FetchResponse spoofed = fetch(2, ALICE);
    assertEquals(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, spoofed.getErrorCode());
    assertEquals(0, spoofed.getTopicsCount(), "nothing read for a spoofed follower");
    assertEquals(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, fetch(2, BROKER).getErrorCode());
    allow(
        AclResourceType.CLUSTER,
        AclResourceType.CLUSTER_NAME,
        "User:CN=broker2",
        AclOperation.CLUSTER_ACTION);
    FetchResponse follower = fetch(2, BROKER);
    assertEquals(ErrorCode.NONE, follower.getErrorCode());
    assertEquals(ErrorCode.NONE, follower.getTopics(0).getPartitions(0).getErrorCode());
  }

  @Test
  void metadataHidesTopicsTheCallerMayNotDescribe() throws Exception {
    allow(AclResourceType.TOPIC, "orders", "User:alice", AclOperation.READ);
    MetadataResponse all =
        get(h.metadata().call(MetadataRequest.newBuilder().setAllTopics(true).build(), ALICE));
    assertEquals(List.of("orders"), all.getTopicsList().stream().map(t -> t.getName()).toList());
    MetadataResponse named =
        get(
            h.metadata()
                .call(
                    MetadataRequest.newBuilder().addTopics("secret").addTopics("orders").build(),
                    ALICE));
    assertEquals(ErrorCode.TOPIC_AUTHORIZATION_FAILED, named.getTopics(0).getErrorCode());
    assertEquals("", named.getTopics(0).getTopicId(), "no id of a hidden topic");
    assertEquals(ErrorCode.NONE, named.getTopics(1).getErrorCode());
    MetadataResponse admin =
        get(h.metadata().call(MetadataRequest.newBuilder().setAllTopics(true).build(), ADMIN));
    assertEquals(2, admin.getTopicsCount());
  }

  @Test
  void topicAdminApisRefuseWhatTheCallerMayNotDo() throws Exception {
    var created =
        get(
            h.createTopics()
                .call(
                    CreateTopicsRequest.newBuilder()
                        .addTopics(CreateTopicsRequest.Topic.newBuilder().setName("new-one"))
                        .build(),
                    ALICE));
    assertEquals(ErrorCode.TOPIC_AUTHORIZATION_FAILED, created.getTopics(0).getErrorCode());
    allow(AclResourceType.TOPIC, "new-one", "User:alice", AclOperation.CREATE);
    created =
        get(
            h.createTopics()
                .call(
                    CreateTopicsRequest.newBuilder()
                        .addTopics(CreateTopicsRequest.Topic.newBuilder().setName("new-one"))
                        .build(),
                    ALICE));
    assertEquals(ErrorCode.QUORUM_UNAVAILABLE, created.getTopics(0).getErrorCode(), "allowed");

    assertEquals(
        ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        get(h.deleteTopics()
                .call(DeleteTopicsRequest.newBuilder().addNames("orders").build(), ALICE))
            .getTopics(0)
            .getErrorCode());
    assertEquals(
        ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        get(h.createPartitions()
                .call(
                    CreatePartitionsRequest.newBuilder()
                        .addTopics(
                            CreatePartitionsRequest.Topic.newBuilder()
                                .setName("orders")
                                .setCount(4))
                        .build(),
                    ALICE))
            .getTopics(0)
            .getErrorCode());
    assertEquals(
        ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        get(h.alterConfigs()
                .call(
                    AlterConfigsRequest.newBuilder()
                        .addTopics(AlterConfigsRequest.Topic.newBuilder().setName("orders"))
                        .build(),
                    ALICE))
            .getTopics(0)
            .getErrorCode());
    assertEquals(
        ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        get(h.describeConfigs()
                .call(DescribeConfigsRequest.newBuilder().addTopics("orders").build(), ALICE))
            .getTopics(0)
            .getErrorCode());
    allow(AclResourceType.TOPIC, "orders", "User:alice", AclOperation.ALTER_CONFIGS);
    assertEquals(
        ErrorCode.NONE,
        get(h.describeConfigs()
                .call(DescribeConfigsRequest.newBuilder().addTopics("orders").build(), ALICE))
            .getTopics(0)
            .getErrorCode(),
        "ALTER_CONFIGS implies DESCRIBE_CONFIGS");
    assertEquals(
        ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        get(h.deleteRecords()
                .call(
                    DeleteRecordsRequest.newBuilder()
                        .addTopics(
                            DeleteRecordsRequest.Topic.newBuilder()
                                .setName("orders")
                                .addPartitions(
                                    DeleteRecordsRequest.Partition.newBuilder()
                                        .setPartition(0)
                                        .setOffset(0)))
                        .build(),
                    ALICE))
            .getTopics(0)
            .getPartitions(0)
            .getErrorCode());
    assertEquals(
        ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        get(h.listOffsets()
                .call(
                    ListOffsetsRequest.newBuilder()
                        .setReplicaId(-1)
                        .addTopics(
                            ListOffsetsRequest.Topic.newBuilder()
                                .setName("secret")
                                .addPartitions(
                                    ListOffsetsRequest.Partition.newBuilder().setPartition(0)))
                        .build(),
                    ALICE))
            .getTopics(0)
            .getPartitions(0)
            .getErrorCode());
  }

  @Test
  void clusterApisNeedTheirClusterOperation() throws Exception {
    assertEquals(
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        get(h.electLeaders().call(ElectLeadersRequest.getDefaultInstance(), ALICE)).getErrorCode());
    assertEquals(
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        get(h.updateFeatures().call(UpdateFeaturesRequest.getDefaultInstance(), ALICE))
            .getErrorCode());
    assertEquals(
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        get(h.unregisterBroker().call(UnregisterBrokerRequest.getDefaultInstance(), ALICE))
            .getErrorCode());
    assertEquals(
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        get(h.describeCluster().call(DescribeClusterRequest.getDefaultInstance(), ALICE))
            .getErrorCode());
    assertEquals(
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        get(h.initProducerId().call(InitProducerIdRequest.getDefaultInstance(), ALICE))
            .getErrorCode());
    allow(AclResourceType.TOPIC, "orders", "User:alice", AclOperation.WRITE);
    assertTrue(
        get(h.initProducerId().call(InitProducerIdRequest.getDefaultInstance(), ALICE))
                .getErrorCode()
            != ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        "WRITE on a topic is enough for an idempotent producer");
    allow(AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME, "User:alice", AclOperation.ALTER);
    assertTrue(
        get(h.describeCluster().call(DescribeClusterRequest.getDefaultInstance(), ALICE))
                .getErrorCode()
            != ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        "ALTER implies DESCRIBE");
    assertEquals(
        ErrorCode.QUORUM_UNAVAILABLE,
        get(h.unregisterBroker().call(UnregisterBrokerRequest.getDefaultInstance(), ALICE))
            .getErrorCode(),
        "allowed: on to the quorum");
  }

  @Test
  void groupApisNeedTheirGroupOperationBeforeTheCoordinatorIsAsked() throws Exception {
    // No coordinator: a refusal must not reach it.
    AuthorizedGroups groups =
        new AuthorizedGroups(null, broker.ctx().withAuthorizer(authorizer()).authorizer());
    var located = groups.findCoordinators(List.of("g1"), ALICE);
    assertEquals(ErrorCode.GROUP_AUTHORIZATION_FAILED, located.get(0).error());
    assertEquals(
        ErrorCode.GROUP_AUTHORIZATION_FAILED, get(groups.describeGroup("g1", ALICE)).error());
    assertEquals(
        ErrorCode.GROUP_AUTHORIZATION_FAILED, get(groups.deleteGroup("g1", ALICE)).error());
    var commit =
        get(
            groups.commitOffsets(
                new dev.spool.coordinator.group.api.OffsetCommitRequest(
                    "g1",
                    "m",
                    1,
                    Map.of(
                        new dev.spool.common.TopicPartition("orders", 0),
                        new dev.spool.coordinator.group.api.OffsetAndMetadata(5, -1, "", -1))),
                ALICE));
    assertEquals(ErrorCode.GROUP_AUTHORIZATION_FAILED, commit.values().iterator().next().error());
    allow(AclResourceType.GROUP, "g1", "User:alice", AclOperation.READ);
    commit =
        get(
            groups.commitOffsets(
                new dev.spool.coordinator.group.api.OffsetCommitRequest(
                    "g1",
                    "m",
                    1,
                    Map.of(
                        new dev.spool.common.TopicPartition("orders", 0),
                        new dev.spool.coordinator.group.api.OffsetAndMetadata(5, -1, "", -1))),
                ALICE));
    assertEquals(
        ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        commit.values().iterator().next().error(),
        "READ on the group but not on the topic");
  }

  private ErrorCode offsetForLeaderEpoch(Caller c) throws Exception {
    OffsetForLeaderEpochRequest req =
        OffsetForLeaderEpochRequest.newBuilder()
            .addTopics(
                OffsetForLeaderEpochRequest.Topic.newBuilder()
                    .setName("orders")
                    .addPartitions(
                        OffsetForLeaderEpochRequest.Partition.newBuilder()
                            .setPartition(0)
                            .setCurrentLeaderEpoch(-1)
                            .setLeaderEpoch(0)))
            .build();
    return get(h.offsetForLeaderEpoch().call(req, c)).getTopics(0).getPartitions(0).getErrorCode();
  }

  @Test
  void offsetForLeaderEpochServesDescribeOnTheTopicOrAReplicaWithClusterAction() throws Exception {
    assertEquals(ErrorCode.TOPIC_AUTHORIZATION_FAILED, offsetForLeaderEpoch(ALICE));
    assertEquals(ErrorCode.TOPIC_AUTHORIZATION_FAILED, offsetForLeaderEpoch(BROKER));
    allow(AclResourceType.TOPIC, "orders", "User:alice", AclOperation.DESCRIBE);
    assertEquals(ErrorCode.NONE, offsetForLeaderEpoch(ALICE));
    // A follower truncating: its broker principal holds CLUSTER_ACTION and no topic ACL.
    allow(
        AclResourceType.CLUSTER,
        AclResourceType.CLUSTER_NAME,
        "User:CN=broker2",
        AclOperation.CLUSTER_ACTION);
    assertEquals(ErrorCode.NONE, offsetForLeaderEpoch(BROKER));
  }

  private Authorizer authorizer() {
    return new Authorizer(true, Set.of("User:admin"), false, () -> Map.copyOf(acls));
  }
}
