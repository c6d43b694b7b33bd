package dev.spool.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.MessageLite;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.Frame;
import dev.spool.protocol.FrameDecoder;
import dev.spool.protocol.InvalidFrameException;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DeleteTopicsResponse;
import dev.spool.protocol.message.DescribeClusterRequest;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.DescribeConfigsRequest;
import dev.spool.protocol.message.DescribeConfigsResponse;
import dev.spool.protocol.message.DescribeLogsRequest;
import dev.spool.protocol.message.DescribeLogsResponse;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.ElectionType;
import dev.spool.protocol.message.EpochEndOffset;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.protocol.message.InitProducerIdRequest;
import dev.spool.protocol.message.InitProducerIdResponse;
import dev.spool.protocol.message.LeaderHint;
import dev.spool.protocol.message.ListOffsetsRequest;
import dev.spool.protocol.message.ListOffsetsResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.OffsetForLeaderEpochRequest;
import dev.spool.protocol.message.OffsetForLeaderEpochResponse;
import dev.spool.protocol.message.ProduceRequest;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.protocol.message.ResponseHeader;
import dev.spool.protocol.message.TopicMetadata;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every request and response type of the protocol survives a trip through {@link
 * Frame#encodePrefix}, {@link FrameDecoder} (byte by byte, so partial frames are exercised) and
 * {@link Frame#parse}, record data included; broken frames raise {@link InvalidFrameException}.
 */
@Tag("unit")
class ProtocolRoundTripTest {
  private static final byte[] RECORDS = "batch-one|batch-two".getBytes(StandardCharsets.UTF_8);

  static Stream<Arguments> messages() {
    return Stream.of(
            connectionMessages(),
            dataMessages(),
            offsetMessages(),
            adminMessages(),
            configMessages())
        .flatMap(s -> s);
  }

  /** What a connection starts with: ApiVersions, Metadata. */
  private static Stream<Arguments> connectionMessages() {
    return Stream.of(
        Arguments.of(
            ApiKey.API_VERSIONS,
            ApiVersionsRequest.newBuilder().setClientSoftwareName("t").build(),
            ApiVersionsResponse.newBuilder()
                .addApiVersions(
                    ApiVersionsResponse.ApiVersionRange.newBuilder()
                        .setApiKey(ApiKey.FETCH)
                        .setMaxVersion(3))
                .build(),
            false),
        Arguments.of(
            ApiKey.METADATA,
            MetadataRequest.newBuilder().addTopics("a").setIncludeConfigs(true).build(),
            MetadataResponse.newBuilder()
                .setClusterId("c")
                .addBrokers(BrokerInfo.newBuilder().setNodeId(1).setHost("h").setPort(9))
                .addTopics(TopicMetadata.newBuilder().setName("a").putConfigs("retention.ms", "1"))
                .build(),
            false));
  }

  /** The data path, both with record data: Produce, Fetch. */
  private static Stream<Arguments> dataMessages() {
    LeaderHint hint = LeaderHint.newBuilder().setLeaderId(2).setLeaderEpoch(7).build();
    return Stream.of(
        Arguments.of(
            ApiKey.PRODUCE,
            ProduceRequest.newBuilder()
                .setAcks(-1)
                .addTopics(
                    ProduceRequest.TopicData.newBuilder()
                        .setName("a")
                        .addPartitions(
                            ProduceRequest.PartitionData.newBuilder()
                                .setPartition(0)
                                .setRecordsSize(9))
                        .addPartitions(
                            ProduceRequest.PartitionData.newBuilder()
                                .setPartition(1)
                                .setRecordsSize(10)))
                .build(),
            ProduceResponse.newBuilder()
                .addTopics(
                    ProduceResponse.TopicResponse.newBuilder()
                        .setName("a")
                        .addPartitions(
                            ProduceResponse.PartitionResponse.newBuilder()
                                .setPartition(0)
                                .setErrorCode(ErrorCode.NOT_LEADER_OR_FOLLOWER)
                                .setCurrentLeader(hint)))
                .build(),
            true),
        Arguments.of(
            ApiKey.FETCH,
            FetchRequest.newBuilder()
                .setReplicaId(-1)
                .setMaxWaitMs(500)
                .addTopics(
                    FetchRequest.FetchTopic.newBuilder()
                        .setName("a")
                        .addPartitions(
                            FetchRequest.FetchPartition.newBuilder()
                                .setFetchOffset(5)
                                .setLastFetchedEpoch(2)))
                .build(),
            FetchResponse.newBuilder()
                .addTopics(
                    FetchResponse.TopicResponse.newBuilder()
                        .setName("a")
                        .addPartitions(
                            FetchResponse.PartitionResponse.newBuilder()
                                .setRecordsSize(RECORDS.length)
                                .setDivergingEpoch(
                                    EpochEndOffset.newBuilder().setEpoch(1).setEndOffset(4))))
                .build(),
            true));
  }

  /** Offsets and producer ids: ListOffsets, OffsetForLeaderEpoch, InitProducerId. */
  private static Stream<Arguments> offsetMessages() {
    return Stream.of(
        Arguments.of(
            ApiKey.LIST_OFFSETS,
            ListOffsetsRequest.newBuilder()
                .addTopics(
                    ListOffsetsRequest.Topic.newBuilder()
                        .setName("a")
                        .addPartitions(ListOffsetsRequest.Partition.newBuilder().setTimestamp(-2)))
                .build(),
            ListOffsetsResponse.newBuilder()
                .addTopics(
                    ListOffsetsResponse.Topic.newBuilder()
                        .setName("a")
                        .addPartitions(ListOffsetsResponse.Partition.newBuilder().setOffset(42)))
                .build(),
            false),
        Arguments.of(
            ApiKey.OFFSET_FOR_LEADER_EPOCH,
            OffsetForLeaderEpochRequest.newBuilder()
                .addTopics(OffsetForLeaderEpochRequest.Topic.newBuilder().setName("a"))
                .build(),
            OffsetForLeaderEpochResponse.newBuilder()
                .addTopics(
                    OffsetForLeaderEpochResponse.Topic.newBuilder()
                        .setName("a")
                        .addPartitions(
                            OffsetForLeaderEpochResponse.Partition.newBuilder().setEndOffset(9)))
                .build(),
            false),
        Arguments.of(
            ApiKey.INIT_PRODUCER_ID,
            InitProducerIdRequest.getDefaultInstance(),
            InitProducerIdResponse.newBuilder().setProducerId(77).setProducerEpoch(1).build(),
            false));
  }

  /** Topics and the cluster: CreateTopics, DeleteTopics, DescribeCluster, ElectLeaders. */
  private static Stream<Arguments> adminMessages() {
    return Stream.of(
        Arguments.of(
            ApiKey.CREATE_TOPICS,
            CreateTopicsRequest.newBuilder()
                .addTopics(
                    CreateTopicsRequest.Topic.newBuilder()
                        .setName("a")
                        .setNumPartitions(-1)
                        .setReplicationFactor(-1)
                        .putConfigs("segment.bytes", "1024"))
                .build(),
            CreateTopicsResponse.newBuilder()
                .addTopics(
                    CreateTopicsResponse.Result.newBuilder()
                        .setName("a")
                        .setErrorCode(ErrorCode.TOPIC_ALREADY_EXISTS))
                .build(),
            false),
        Arguments.of(
            ApiKey.DELETE_TOPICS,
            DeleteTopicsRequest.newBuilder().addNames("a").build(),
            DeleteTopicsResponse.newBuilder()
                .addTopics(DeleteTopicsResponse.Result.newBuilder().setName("a"))
                .build(),
            false),
        Arguments.of(
            ApiKey.DESCRIBE_CLUSTER,
            DescribeClusterRequest.getDefaultInstance(),
            DescribeClusterResponse.newBuilder()
                .setQuorum(
                    QuorumInfo.newBuilder()
                        .setLeaderId(1)
                        .addVoters(QuorumInfo.Voter.newBuilder().setNodeId(2).setLag(3)))
                .setOfflinePartitions(1)
                .build(),
            false),
        Arguments.of(
            ApiKey.ELECT_LEADERS,
            ElectLeadersRequest.newBuilder().setElectionType(ElectionType.UNCLEAN).build(),
            ElectLeadersResponse.newBuilder()
                .addResults(
                    ElectLeadersResponse.Result.newBuilder()
                        .setTopic("a")
                        .setErrorCode(ErrorCode.ELECTION_NOT_NEEDED))
                .build(),
            false));
  }

  /** Topic configs and logs: DescribeConfigs, AlterConfigs, DescribeLogs. */
  private static Stream<Arguments> configMessages() {
    return Stream.of(
        Arguments.of(
            ApiKey.DESCRIBE_CONFIGS,
            DescribeConfigsRequest.newBuilder().addTopics("a").build(),
            DescribeConfigsResponse.newBuilder()
                .addTopics(
                    DescribeConfigsResponse.Result.newBuilder()
                        .setName("a")
                        .addEntries(
                            DescribeConfigsResponse.ConfigEntry.newBuilder()
                                .setKey("k")
                                .setValue("v")
                                .setIsDefault(true)))
                .build(),
            false),
        Arguments.of(
            ApiKey.ALTER_CONFIGS,
            AlterConfigsRequest.newBuilder()
                .addTopics(
                    AlterConfigsRequest.Topic.newBuilder()
                        .setName("a")
                        .putAllSet(Map.of("retention.ms", "5"))
                        .addDelete("segment.ms"))
                .build(),
            AlterConfigsResponse.newBuilder()
                .addTopics(AlterConfigsResponse.Result.newBuilder().setName("a"))
                .build(),
            false),
        Arguments.of(
            ApiKey.DESCRIBE_LOGS,
            DescribeLogsRequest.newBuilder().addTopics("a").build(),
            DescribeLogsResponse.newBuilder()
                .setBrokerId(2)
                .addPartitions(
                    DescribeLogsResponse.ReplicaLog.newBuilder()
                        .setTopic("a")
                        .setPartition(1)
                        .setSizeBytes(4096)
                        .setCompacted(true)
                        .setFirstDirtyOffset(17)
                        .setDirtyRatio(0.25)
                        .setLastCleanTimeMs(1_700_000_000_000L))
                .build(),
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("messages")
  void shouldRoundTripRequestAndResponse(
      ApiKey api, MessageLite request, MessageLite response, boolean requestHasRecords) {
    byte[] requestRecords = api == ApiKey.PRODUCE ? RECORDS : new byte[0];
    byte[] responseRecords = api == ApiKey.FETCH ? RECORDS : new byte[0];

    RequestHeader rh =
        RequestHeader.newBuilder().setApiKey(api).setCorrelationId(42).setClientId("c").build();
    Frame req = roundTrip(rh, request, requestRecords);
    assertEquals(rh, req.parseHeader(RequestHeader.parser()));
    assertEquals(request, req.parseBody(ApiMessages.requestParser(api)));
    assertArrayEquals(requestRecords, ByteBufUtil.getBytes(req.recordData()));

    ResponseHeader sh = ResponseHeader.newBuilder().setCorrelationId(42).build();
    Frame resp = roundTrip(sh, response, responseRecords);
    assertEquals(sh, resp.parseHeader(ResponseHeader.parser()));
    assertEquals(response, resp.parseBody(ApiMessages.responseParser(api)));
    assertArrayEquals(responseRecords, ByteBufUtil.getBytes(resp.recordData()));
    assertTrue(requestHasRecords == (requestRecords.length + responseRecords.length > 0));
  }

  /** Encodes, feeds the decoder one byte at a time, and parses the one frame that comes out. */
  private static Frame roundTrip(MessageLite header, MessageLite body, byte[] records) {
    ByteBuf prefix = Frame.encodePrefix(ByteBufAllocator.DEFAULT, header, body, records.length);
    ByteBuf wire = Unpooled.wrappedBuffer(prefix, Unpooled.wrappedBuffer(records));
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20));
    while (wire.isReadable()) {
      ch.writeInbound(wire.readRetainedSlice(1));
    }
    wire.release();
    ByteBuf frame = ch.readInbound();
    assertNull(ch.readInbound(), "exactly one frame");
    byte[] copy = ByteBufUtil.getBytes(frame);
    frame.release();
    ch.finishAndReleaseAll();
    return Frame.parse(Unpooled.wrappedBuffer(copy));
  }

  @Test
  void shouldRejectNegativeFrameLength() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1024));
    DecoderException e =
        assertThrows(DecoderException.class, () -> ch.writeInbound(Unpooled.buffer().writeInt(-5)));
    assertTrue(e.getCause() instanceof InvalidFrameException, e.toString());
  }

  @Test
  void shouldRejectOversizeFrameBeforeBufferingIt() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1024));
    DecoderException e =
        assertThrows(
            DecoderException.class,
            () -> ch.writeInbound(Unpooled.buffer().writeInt(1025).writeInt(0)));
    assertTrue(e.getCause() instanceof InvalidFrameException);
  }

  @Test
  void shouldWaitForTheRestOfATruncatedFrame() {
    ByteBuf prefix =
        Frame.encodePrefix(
            ByteBufAllocator.DEFAULT,
            RequestHeader.newBuilder().setCorrelationId(1).build(),
            MetadataRequest.getDefaultInstance(),
            0);
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1024));
    ch.writeInbound(prefix.readRetainedSlice(prefix.readableBytes() - 1));
    assertNull(ch.readInbound(), "a truncated frame is not emitted");
    ch.writeInbound(prefix.readRetainedSlice(1));
    ByteBuf frame = ch.readInbound();
    assertEquals(1, Frame.parse(frame).parseHeader(RequestHeader.parser()).getCorrelationId());
    frame.release();
    prefix.release();
  }

  @Test
  void shouldRejectHeaderLengthBeyondFrame() {
    ByteBuf frame = Unpooled.buffer().writeInt(100).writeInt(0);
    assertThrows(InvalidFrameException.class, () -> Frame.parse(frame));
  }

  @Test
  void shouldRejectBodyLengthBeyondFrame() {
    ByteBuf frame = Unpooled.buffer().writeInt(0).writeInt(50).writeZero(10);
    assertThrows(InvalidFrameException.class, () -> Frame.parse(frame));
  }

  @Test
  void shouldRejectFrameShorterThanSectionLengths() {
    assertThrows(InvalidFrameException.class, () -> Frame.parse(Unpooled.buffer().writeInt(0)));
  }

  @Test
  void shouldRejectUnparsableHeader() {
    ByteBuf frame =
        Unpooled.buffer()
            .writeInt(3)
            .writeBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff})
            .writeInt(0);
    Frame f = Frame.parse(frame);
    assertThrows(InvalidFrameException.class, () -> f.parseHeader(RequestHeader.parser()));
  }

  @Test
  void shouldSplitRecordDataInBodyOrder() {
    ProduceRequest body =
        (ProduceRequest)
            messages().filter(a -> a.get()[0] == ApiKey.PRODUCE).findFirst().orElseThrow().get()[1];
    Frame f = roundTrip(RequestHeader.getDefaultInstance(), body, RECORDS);
    ByteBuf data = f.recordData();
    List<String> parts =
        body.getTopics(0).getPartitionsList().stream()
            .map(p -> data.readCharSequence(p.getRecordsSize(), StandardCharsets.UTF_8).toString())
            .toList();
    assertEquals(List.of("batch-one", "|batch-two"), parts);
  }
}
