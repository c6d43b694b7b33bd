package dev.spool.broker.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.MessageLite;
import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.replication.ReplicaManager;
import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.Frame;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.ProduceRequest;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultFileRegion;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handlers' validation paths against a real replica manager on broker 1 (leader of orders-0,
 * follower of orders-1), without sockets: requests are framed as the network layer frames them and
 * the responses inspected.
 */
@Tag("unit")
@Timeout(30)
class HandlerValidationTest {
  @TempDir Path dir;

  private final ManualClock clock = new ManualClock(System.currentTimeMillis());
  private HandlerTestBroker broker;
  private ReplicaManager replicas;
  private BrokerContext ctx;
  private MetadataImage image;

  private void apply(MetadataRecord... records) {
    broker.apply(records);
    image = broker.image();
  }

  @BeforeEach
  void setUp() {
    broker = new HandlerTestBroker(dir, clock);
    replicas = broker.replicas();
    ctx = broker.ctx();
    image = broker.image();
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private static RequestContext request(ApiKey api, MessageLite body, ByteBuf records) {
    RequestHeader h = RequestHeader.newBuilder().setApiKey(api).setCorrelationId(7).build();
    int recordBytes = records == null ? 0 : records.readableBytes();
    ByteBuf prefix = Frame.encodePrefix(ByteBufAllocator.DEFAULT, h, body, recordBytes);
    prefix.skipBytes(4);
    ByteBuf frame = records == null ? prefix : Unpooled.wrappedBuffer(prefix, records);
    return new RequestContext(h, Frame.parse(frame), frame, "test", null, 0);
  }

  private static ByteBuffer batch() {
    return new RecordBatchBuilder(64)
        .append(System.currentTimeMillis(), null, "v".getBytes())
        .build();
  }

  private static ProduceRequest produce(int partition, int acks, int size) {
    return ProduceRequest.newBuilder()
        .setAcks(acks)
        .setTimeoutMs(1000)
        .addTopics(
            ProduceRequest.TopicData.newBuilder()
                .setName("orders")
                .addPartitions(
                    ProduceRequest.PartitionData.newBuilder()
                        .setPartition(partition)
                        .setRecordsSize(size)
                        .setLeaderEpoch(-1)))
        .build();
  }

  private BrokerResponse handleProduce(int partition, int acks, int declaredSize) throws Exception {
    ByteBuffer b = batch();
    return new ProduceHandler(ctx)
        .handle(
            request(
                ApiKey.PRODUCE,
                produce(partition, acks, declaredSize < 0 ? b.remaining() : declaredSize),
                Unpooled.wrappedBuffer(b)))
        .get(5, TimeUnit.SECONDS);
  }

  private static ProduceResponse.PartitionResponse first(BrokerResponse r) {
    return ((ProduceResponse) r.body()).getTopics(0).getPartitions(0);
  }

  @Test
  void shouldCloseTheConnectionWhenDeclaredRecordBytesDoNotMatch() throws Exception {
    BrokerResponse r = handleProduce(0, 1, 3);
    assertEquals(ErrorCode.INVALID_REQUEST, r.requestError());
    assertTrue(r.closeAfterSend());
    assertEquals(
        0, replicas.partition(new TopicPartition("orders", 0)).orElseThrow().log().logEndOffset());
  }

  @Test
  void shouldRefuseInvalidAcksAndUnknownPartitionsPerPartition() throws Exception {
    assertEquals(ErrorCode.INVALID_REQUEST, first(handleProduce(0, 2, -1)).getErrorCode());
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, first(handleProduce(-1, 1, -1)).getErrorCode());
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, first(handleProduce(9, 1, -1)).getErrorCode());
  }

  @Test
  void shouldRedirectAProduceToTheLeaderWithAHint() throws Exception {
    ProduceResponse.PartitionResponse p = first(handleProduce(1, 1, -1));
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, p.getErrorCode());
    assertEquals(2, p.getCurrentLeader().getLeaderId());
    assertEquals("host2", p.getCurrentLeader().getEndpoint().getHost());
    assertFalse(p.getErrorMessage().isEmpty());
  }

  @Test
  void shouldSendNoResponseForAcksZeroAfterAppending() throws Exception {
    BrokerResponse r = handleProduce(0, 0, -1);
    assertTrue(r.isNone());
    assertEquals(
        1, replicas.partition(new TopicPartition("orders", 0)).orElseThrow().log().logEndOffset());
  }

  @Test
  void shouldRefuseAcksAllBelowMinIsrWithTheLogUntouched() throws Exception {
    // ISR {1, 2}, replicas 3 -> min.insync.replicas 2: allowed; drop follower 2 from the ISR.
    apply(Records.partitionChange(image.partition(new TopicPartition("orders", 0)), 1, List.of(1)));
    replicas.applyMetadata(image, MetadataDelta.between(MetadataImage.EMPTY, image, true));
    Awaitility.await()
        .atMost(5, TimeUnit.SECONDS)
        .until(
            () ->
                replicas
                        .partition(new TopicPartition("orders", 0))
                        .orElseThrow()
                        .leaderState()
                        .isr()
                        .size()
                    == 1);
    assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, first(handleProduce(0, -1, -1)).getErrorCode());
    assertEquals(
        0, replicas.partition(new TopicPartition("orders", 0)).orElseThrow().log().logEndOffset());
  }

  private FetchResponse fetch(int replicaId, long brokerEpoch, int partition, long offset)
      throws Exception {
    FetchRequest req =
        FetchRequest.newBuilder()
            .setReplicaId(replicaId)
            .setBrokerEpoch(brokerEpoch)
            .setMaxWaitMs(0)
            .setMinBytes(1)
            .setMaxBytes(1 << 20)
            .addTopics(
                FetchRequest.FetchTopic.newBuilder()
                    .setName("orders")
                    .addPartitions(
                        FetchRequest.FetchPartition.newBuilder()
                            .setPartition(partition)
                            .setFetchOffset(offset)
                            .setCurrentLeaderEpoch(-1)
                            .setLastFetchedEpoch(-1)
                            .setPartitionMaxBytes(1 << 20)))
            .build();
    BrokerResponse r =
        new FetchHandler(ctx).handle(request(ApiKey.FETCH, req, null)).get(5, TimeUnit.SECONDS);
    r.recordParts().forEach(io.netty.util.ReferenceCountUtil::release);
    return (FetchResponse) r.body();
  }

  @Test
  void shouldRefuseAFollowerFetchWithAStaleBrokerEpoch() throws Exception {
    long epoch2 = image.broker(2).epoch();
    assertEquals(ErrorCode.STALE_BROKER_EPOCH, fetch(2, epoch2 - 1, 0, 0).getErrorCode());
    assertEquals(ErrorCode.NONE, fetch(2, epoch2, 0, 0).getErrorCode());
  }

  @Test
  void shouldRefuseFetchesFromNonReplicasAndBeyondTheLogEnd() throws Exception {
    apply(Records.registerBroker(4, "inc-4", "host4", 9004, "", 0));
    replicas.applyMetadata(image, MetadataDelta.between(MetadataImage.EMPTY, image, true));
    assertEquals(
        ErrorCode.NOT_LEADER_OR_FOLLOWER,
        fetch(4, image.broker(4).epoch(), 0, 0).getTopics(0).getPartitions(0).getErrorCode());
    assertEquals(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        fetch(2, image.broker(2).epoch(), 0, 5).getTopics(0).getPartitions(0).getErrorCode());
    assertEquals(
        ErrorCode.NOT_LEADER_OR_FOLLOWER,
        fetch(-1, -1, 1, 0).getTopics(0).getPartitions(0).getErrorCode());
  }

  @Test
  void shouldSendRecordsAsFileRegionsThatNeverCloseTheSegment() throws Exception {
    handleProduce(0, 1, -1);
    FetchRequest req =
        FetchRequest.newBuilder()
            .setReplicaId(2)
            .setBrokerEpoch(image.broker(2).epoch())
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
    BrokerResponse r =
        new FetchHandler(ctx).handle(request(ApiKey.FETCH, req, null)).get(5, TimeUnit.SECONDS);
    assertEquals(1, r.recordParts().size());
    DefaultFileRegion region = (DefaultFileRegion) r.recordParts().get(0);
    assertEquals(
        2,
        region.refCnt(),
        "one reference for the connection, one held so deallocate() never runs");
    region.release(); // what the connection does after writing it
    assertEquals(1, region.refCnt());
    assertTrue(
        replicas
            .partition(new TopicPartition("orders", 0))
            .orElseThrow()
            .log()
            .read(0, 100, Long.MAX_VALUE, true)
            .slice()
            .channel()
            .isOpen());
  }

  @Test
  void shouldListOfflineReplicasAndUnknownTopicsInMetadata() throws Exception {
    MetadataResponse m =
        (MetadataResponse)
            new MetadataHandler(ctx)
                .handle(
                    request(
                        ApiKey.METADATA,
                        MetadataRequest.newBuilder()
                            .addTopics("orders")
                            .addTopics("missing")
                            .build(),
                        null))
                .get(5, TimeUnit.SECONDS)
                .body();
    assertEquals(2, m.getBrokersCount(), "fenced broker 3 is not live");
    assertEquals(List.of(3), m.getTopics(0).getPartitions(0).getOfflineReplicasList());
    assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, m.getTopics(1).getErrorCode());
    assertEquals(2, m.getControllerId(), "the active controller as the lifecycle last heard it");
  }

  @Test
  void shouldAnswerATopicNamedManyTimesOnceInMetadataAndDescribeConfigs() throws Exception {
    MetadataRequest.Builder m = MetadataRequest.newBuilder();
    dev.spool.protocol.message.DescribeConfigsRequest.Builder d =
        dev.spool.protocol.message.DescribeConfigsRequest.newBuilder();
    for (int i = 0; i < 1000; i++) {
      m.addTopics("orders").addTopics("missing");
      d.addTopics("orders");
    }
    MetadataResponse meta =
        (MetadataResponse)
            new MetadataHandler(ctx)
                .handle(request(ApiKey.METADATA, m.build(), null))
                .get(5, TimeUnit.SECONDS)
                .body();
    assertEquals(2, meta.getTopicsCount());
    assertEquals("orders", meta.getTopics(0).getName());
    assertEquals("missing", meta.getTopics(1).getName());
    assertEquals(
        1,
        new DescribeConfigsHandler(ctx).call(d.build()).get(5, TimeUnit.SECONDS).getTopicsCount());
  }

  @Test
  void shouldReadAPartitionNamedTwiceInOneFetchOnce() throws Exception {
    handleProduce(0, 1, -1);
    FetchRequest.FetchPartition p0 =
        FetchRequest.FetchPartition.newBuilder()
            .setPartition(0)
            .setFetchOffset(0)
            .setCurrentLeaderEpoch(-1)
            .setLastFetchedEpoch(-1)
            .setPartitionMaxBytes(1 << 20)
            .build();
    FetchRequest req =
        FetchRequest.newBuilder()
            .setReplicaId(2)
            .setBrokerEpoch(image.broker(2).epoch())
            .setMaxWaitMs(0)
            .setMaxBytes(1 << 20)
            .addTopics(
                FetchRequest.FetchTopic.newBuilder()
                    .setName("orders")
                    .addPartitions(p0)
                    .addPartitions(p0)
                    .addPartitions(p0))
            .build();
    BrokerResponse r =
        new FetchHandler(ctx).handle(request(ApiKey.FETCH, req, null)).get(5, TimeUnit.SECONDS);
    assertEquals(1, r.recordParts().size(), "the records are sent once");
    FetchResponse body = (FetchResponse) r.body();
    assertEquals(ErrorCode.NONE, body.getTopics(0).getPartitions(0).getErrorCode());
    assertEquals(ErrorCode.INVALID_REQUEST, body.getTopics(0).getPartitions(1).getErrorCode());
    assertEquals(ErrorCode.INVALID_REQUEST, body.getTopics(0).getPartitions(2).getErrorCode());
    r.recordParts().forEach(io.netty.util.ReferenceCountUtil::release);
  }
}
