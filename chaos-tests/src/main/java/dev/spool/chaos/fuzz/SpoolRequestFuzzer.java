package dev.spool.chaos.fuzz;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ConsumerGroupHeartbeatRequest;
import dev.spool.protocol.message.DeleteGroupsRequest;
import dev.spool.protocol.message.DeleteRecordsRequest;
import dev.spool.protocol.message.DescribeClusterRequest;
import dev.spool.protocol.message.DescribeConfigsRequest;
import dev.spool.protocol.message.DescribeFeaturesRequest;
import dev.spool.protocol.message.DescribeGroupsRequest;
import dev.spool.protocol.message.DescribeLogsRequest;
import dev.spool.protocol.message.DescribeProducersRequest;
import dev.spool.protocol.message.DescribeUserScramCredentialsRequest;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FindCoordinatorRequest;
import dev.spool.protocol.message.InitProducerIdRequest;
import dev.spool.protocol.message.ListGroupsRequest;
import dev.spool.protocol.message.ListOffsetsRequest;
import dev.spool.protocol.message.ListPartitionReassignmentsRequest;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.OffsetCommitRequest;
import dev.spool.protocol.message.OffsetDeleteRequest;
import dev.spool.protocol.message.OffsetFetchRequest;
import dev.spool.protocol.message.OffsetForLeaderEpochRequest;
import dev.spool.protocol.message.OwnedPartitions;
import dev.spool.protocol.message.ProduceRequest;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.protocol.message.ResponseHeader;
import dev.spool.protocol.message.Subscription;
import dev.spool.protocol.message.TopicPartitions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A seeded, structure-aware fuzzer for Spool's own listener. Its frames are three sections (a
 * protobuf header, a protobuf body and record data, each after its length; see {@code
 * dev.spool.protocol.Frame}); a mutant starts from a valid request of an API that reads, appends,
 * deletes records of or works on groups of the fuzzer's own topic and group, and changes one to
 * three things: one field's value anywhere in the body, so that the request still parses and
 * reaches its handler ({@link FieldMutations}), the header's API key (to any number, known or not)
 * or version, the header's or the body's bytes (varints made huge, bits flipped, slices repeated,
 * truncation, garbage, unknown protobuf fields of any wire type), the record batches (bits, lengths
 * and counts), or the section lengths themselves. The frame's outer length always matches, so a
 * mutant never stalls the connection waiting for bytes that will not come (slow clients are the
 * limits' tests).
 *
 * <p>A mutant whose header, read as the broker reads it, names a known API outside {@link #SAFE}
 * (creating, deleting or reconfiguring topics, partitions, features, credentials, brokers or
 * reassignments, or any API added later) is drawn again, so the fuzzer keeps to its own topic and
 * group. {@link FuzzCampaign} sends them, with ApiVersions as the sentinel and a Metadata request
 * for every topic as the canary.
 *
 * <p>The same seed gives the same requests. {@code main} runs the long campaign ({@code
 * scripts/kafka-fuzz.sh --listener spool}); tests run a short one.
 *
 * <p>Threads: one caller; not thread-safe.
 */
public final class SpoolRequestFuzzer implements FuzzCampaign.Dialect {

  /** The APIs a mutant may name: they read, or change only the fuzzer's own topic and group. */
  static final Set<ApiKey> SAFE =
      EnumSet.of(
          ApiKey.API_KEY_UNSPECIFIED,
          ApiKey.API_VERSIONS,
          ApiKey.METADATA,
          ApiKey.PRODUCE,
          ApiKey.FETCH,
          ApiKey.LIST_OFFSETS,
          ApiKey.OFFSET_FOR_LEADER_EPOCH,
          ApiKey.INIT_PRODUCER_ID,
          ApiKey.DESCRIBE_CLUSTER,
          ApiKey.DESCRIBE_CONFIGS,
          ApiKey.FIND_COORDINATOR,
          ApiKey.CONSUMER_GROUP_HEARTBEAT,
          ApiKey.OFFSET_COMMIT,
          ApiKey.OFFSET_FETCH,
          ApiKey.LIST_GROUPS,
          ApiKey.DESCRIBE_GROUPS,
          ApiKey.DELETE_GROUPS,
          ApiKey.OFFSET_DELETE,
          ApiKey.DESCRIBE_LOGS,
          ApiKey.DELETE_RECORDS,
          ApiKey.DESCRIBE_PRODUCERS,
          ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS,
          ApiKey.DESCRIBE_FEATURES,
          ApiKey.LIST_PARTITION_REASSIGNMENTS);

  /** A valid request: its header, body and record data. */
  private record Seed(RequestHeader header, Message body, byte[] records) {}

  private static final String CLIENT_ID = "fuzz";

  private final InetSocketAddress target;
  private final Random random;
  private final List<Seed> seeds;
  private final int readTimeoutMs;

  public SpoolRequestFuzzer(InetSocketAddress target, long seed, String topic, int readTimeoutMs) {
    this.target = target;
    this.random = new Random(seed);
    this.seeds = seeds(topic, random);
    this.readTimeoutMs = readTimeoutMs;
  }

  /** Sends at least {@code requests} mutated requests; throws when the canary goes unanswered. */
  public FuzzCampaign.Result run(long requests) throws IOException {
    return FuzzCampaign.run(target, this, requests, readTimeoutMs);
  }

  @Override
  public byte[] nextMutant() {
    Seed s = seeds.get(random.nextInt(seeds.size()));
    for (int attempt = 0; attempt < 16; attempt++) {
      byte[] m = mutate(s);
      if (safe(m)) {
        return m;
      }
    }
    return frame(s.header().toByteArray(), s.body().toByteArray(), s.records());
  }

  @Override
  public byte[] sentinel() {
    return frame(
        header(ApiKey.API_VERSIONS, FuzzCampaign.SENTINEL_CORRELATION).toByteArray(),
        ApiVersionsRequest.getDefaultInstance().toByteArray(),
        new byte[0]);
  }

  @Override
  public byte[] canary(int n) {
    return frame(
        header(ApiKey.METADATA, n).toByteArray(),
        MetadataRequest.newBuilder().setAllTopics(true).build().toByteArray(),
        new byte[0]);
  }

  @Override
  public int correlationId(byte[] answer) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(answer);
    int headerLength = b.getInt(0);
    if (headerLength < 0 || 4L + headerLength > answer.length) {
      throw new IOException("answer with header length " + headerLength);
    }
    return ResponseHeader.parseFrom(ByteBuffer.wrap(answer, 4, headerLength)).getCorrelationId();
  }

  // ------------------------------------------------------------------ mutations

  private byte[] mutate(Seed s) {
    byte[] header = s.header().toByteArray();
    Message message = s.body();
    byte[] body = null; // the body's bytes once a byte-level mutation changed them
    byte[] records = s.records().clone();
    boolean lengths = false;
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      switch (random.nextInt(12)) {
        case 0 -> // any API number, known or not
            header =
                s.header().toBuilder().setApiKeyValue(random.nextInt(48) - 2).build().toByteArray();
        case 1 ->
            header =
                s.header().toBuilder().setApiVersion(random.nextInt(6) - 1).build().toByteArray();
        case 2 -> header = bytes(header);
        case 3 -> body = bytes(body == null ? message.toByteArray() : body);
        case 4 -> body = unknownField(body == null ? message.toByteArray() : body);
        case 5 -> {
          if (records.length == 0) {
            body = bytes(body == null ? message.toByteArray() : body);
          } else {
            records = bytes(records);
          }
        }
        case 6 -> lengths = true;
        default -> { // a field's value: the request still parses and reaches its handler
          if (body == null) {
            message = FieldMutations.apply(random, message);
          } else {
            body = bytes(body);
          }
        }
      }
    }
    if (body == null) {
      body = message.toByteArray();
    }
    byte[] frame = frame(header, body, records);
    if (lengths) {
      // Section lengths as the decoder reads them: header length at 4, body length after it.
      int at = random.nextBoolean() ? 4 : Math.min(frame.length - 4, 8 + header.length);
      int v =
          random.nextBoolean()
              ? ByteBuffer.wrap(frame).getInt(at) + random.nextInt(17) - 8
              : new int[] {-1, 0, 0x7fffffff, 0x80000000, 0xffff}[random.nextInt(5)];
      ByteBuffer.wrap(frame).putInt(at, v);
    }
    return frame;
  }

  /** One byte-level mutation of a section. */
  private byte[] bytes(byte[] b) {
    return switch (random.nextInt(6)) {
      case 0 -> Mutations.hugeVarint(random, b, 0);
      case 1 -> Mutations.extreme(random, b, 0);
      case 2 -> Mutations.flipBits(random, b, 0);
      case 3 -> Mutations.repeatSlice(random, b);
      case 4 -> Mutations.truncate(random, b);
      default -> Mutations.appendGarbage(random, b);
    };
  }

  /** A protobuf field the message does not have, of a random wire type, appended. */
  private byte[] unknownField(byte[] body) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(body);
      CodedOutputStream c = CodedOutputStream.newInstance(out);
      int field = 1 + random.nextInt(random.nextBoolean() ? 64 : (1 << 29) - 1);
      switch (random.nextInt(4)) {
        case 0 -> c.writeUInt64(field, random.nextLong());
        case 1 -> c.writeFixed64(field, random.nextLong());
        case 2 -> c.writeFixed32(field, random.nextInt());
        default -> {
          byte[] blob = new byte[random.nextInt(64)];
          random.nextBytes(blob);
          c.writeBytes(field, ByteString.copyFrom(blob));
        }
      }
      c.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException("writing into memory failed", e);
    }
  }

  /**
   * True unless the broker would read a known API outside {@link #SAFE} from the frame's header:
   * the header as the decoder slices it (after its length field, when that length fits).
   */
  static boolean safe(byte[] frame) {
    if (frame.length < 12) {
      return true;
    }
    ByteBuffer b = ByteBuffer.wrap(frame);
    int headerLength = b.getInt(4);
    if (headerLength < 0 || 8L + headerLength > frame.length) {
      return true;
    }
    try {
      ApiKey key = RequestHeader.parseFrom(ByteBuffer.wrap(frame, 8, headerLength)).getApiKey();
      return key == ApiKey.UNRECOGNIZED || SAFE.contains(key);
    } catch (InvalidProtocolBufferException e) {
      return true;
    }
  }

  /** A whole frame: size field, the section lengths and the sections. */
  static byte[] frame(byte[] header, byte[] body, byte[] records) {
    int size = 8 + header.length + body.length + records.length;
    return ByteBuffer.allocate(4 + size)
        .putInt(size)
        .putInt(header.length)
        .put(header)
        .putInt(body.length)
        .put(body)
        .put(records)
        .array();
  }

  private static RequestHeader header(ApiKey key, int correlationId) {
    return RequestHeader.newBuilder()
        .setApiKey(key)
        .setApiVersion(0)
        .setCorrelationId(correlationId)
        .setClientId(CLIENT_ID)
        .build();
  }

  // ------------------------------------------------------------------ seeds

  private static Seed seed(ApiKey key, Message body) {
    return new Seed(header(key, 1), body, new byte[0]);
  }

  private static List<Seed> seeds(String topic, Random random) {
    String group = topic + "-group";
    MemoryRecords batch =
        MemoryRecords.withRecords(
            Compression.NONE,
            new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), "fuzz".getBytes()),
            new SimpleRecord(null, "fuzz-2".getBytes(StandardCharsets.UTF_8)));
    byte[] records = new byte[batch.sizeInBytes()];
    batch.buffer().duplicate().get(records);
    List<Seed> out = new ArrayList<>();
    out.add(seed(ApiKey.API_VERSIONS, ApiVersionsRequest.getDefaultInstance()));
    out.add(
        seed(
            ApiKey.API_VERSIONS,
            ApiVersionsRequest.newBuilder()
                .setClientSoftwareName("fuzz")
                .setClientSoftwareVersion("1")
                .build()));
    out.add(seed(ApiKey.METADATA, MetadataRequest.newBuilder().setAllTopics(true).build()));
    out.add(
        seed(
            ApiKey.METADATA,
            MetadataRequest.newBuilder().addTopics(topic).setIncludeConfigs(true).build()));
    for (int acks : new int[] {0, 1, -1}) {
      ProduceRequest p =
          ProduceRequest.newBuilder()
              .setAcks(acks)
              .setTimeoutMs(1000)
              .addTopics(
                  ProduceRequest.TopicData.newBuilder()
                      .setName(topic)
                      .addPartitions(
                          ProduceRequest.PartitionData.newBuilder()
                              .setPartition(0)
                              .setRecordsSize(records.length)
                              .setLeaderEpoch(-1)))
              .build();
      out.add(new Seed(header(ApiKey.PRODUCE, 1), p, records));
    }
    out.add(
        seed(
            ApiKey.FETCH,
            FetchRequest.newBuilder()
                .setReplicaId(-1)
                .setMaxWaitMs(10)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .addTopics(
                    FetchRequest.FetchTopic.newBuilder()
                        .setName(topic)
                        .addPartitions(
                            FetchRequest.FetchPartition.newBuilder()
                                .setPartition(0)
                                .setFetchOffset(0)
                                .setCurrentLeaderEpoch(-1)
                                .setLastFetchedEpoch(-1)
                                .setPartitionMaxBytes(1 << 20)))
                .build()));
    out.add(
        seed(
            ApiKey.LIST_OFFSETS,
            ListOffsetsRequest.newBuilder()
                .setReplicaId(-1)
                .addTopics(
                    ListOffsetsRequest.Topic.newBuilder()
                        .setName(topic)
                        .addPartitions(
                            ListOffsetsRequest.Partition.newBuilder()
                                .setPartition(0)
                                .setTimestamp(-1)
                                .setCurrentLeaderEpoch(-1)))
                .build()));
    out.add(
        seed(
            ApiKey.OFFSET_FOR_LEADER_EPOCH,
            OffsetForLeaderEpochRequest.newBuilder()
                .addTopics(
                    OffsetForLeaderEpochRequest.Topic.newBuilder()
                        .setName(topic)
                        .addPartitions(
                            OffsetForLeaderEpochRequest.Partition.newBuilder()
                                .setPartition(0)
                                .setCurrentLeaderEpoch(-1)
                                .setLeaderEpoch(0)))
                .build()));
    out.addAll(describeSeeds(topic));
    out.addAll(groupSeeds(topic, group, random));
    return out;
  }

  /** Requests that describe the cluster or the fuzzer's topic, and DeleteRecords of it. */
  private static List<Seed> describeSeeds(String topic) {
    List<Seed> out = new ArrayList<>();
    out.add(seed(ApiKey.INIT_PRODUCER_ID, InitProducerIdRequest.getDefaultInstance()));
    out.add(seed(ApiKey.DESCRIBE_CLUSTER, DescribeClusterRequest.getDefaultInstance()));
    out.add(
        seed(
            ApiKey.DESCRIBE_CONFIGS, DescribeConfigsRequest.newBuilder().addTopics(topic).build()));
    out.add(seed(ApiKey.DESCRIBE_LOGS, DescribeLogsRequest.getDefaultInstance()));
    out.add(
        seed(
            ApiKey.DESCRIBE_PRODUCERS,
            DescribeProducersRequest.newBuilder()
                .addTopics(
                    DescribeProducersRequest.Topic.newBuilder().setName(topic).addPartitions(0))
                .build()));
    out.add(
        seed(
            ApiKey.DELETE_RECORDS,
            DeleteRecordsRequest.newBuilder()
                .setTimeoutMs(1000)
                .addTopics(
                    DeleteRecordsRequest.Topic.newBuilder()
                        .setName(topic)
                        .addPartitions(
                            DeleteRecordsRequest.Partition.newBuilder()
                                .setPartition(0)
                                .setOffset(0)))
                .build()));
    out.add(seed(ApiKey.DESCRIBE_FEATURES, DescribeFeaturesRequest.getDefaultInstance()));
    out.add(
        seed(
            ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS,
            DescribeUserScramCredentialsRequest.getDefaultInstance()));
    out.add(
        seed(
            ApiKey.LIST_PARTITION_REASSIGNMENTS,
            ListPartitionReassignmentsRequest.getDefaultInstance()));
    return out;
  }

  private static List<Seed> groupSeeds(String topic, String group, Random random) {
    TopicPartitions tp = TopicPartitions.newBuilder().setTopic(topic).addPartitions(0).build();
    List<Seed> out = new ArrayList<>();
    out.add(
        seed(ApiKey.FIND_COORDINATOR, FindCoordinatorRequest.newBuilder().addKeys(group).build()));
    out.add(
        seed(
            ApiKey.CONSUMER_GROUP_HEARTBEAT,
            ConsumerGroupHeartbeatRequest.newBuilder()
                .setGroupId(group)
                .setMemberId(new UUID(random.nextLong(), random.nextLong()).toString())
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(10_000)
                .setSubscription(Subscription.newBuilder().addTopicNames(topic))
                .setOwned(OwnedPartitions.getDefaultInstance())
                .build()));
    out.add(
        seed(
            ApiKey.OFFSET_COMMIT,
            OffsetCommitRequest.newBuilder()
                .setGroupId(group)
                .setMemberEpoch(-1)
                .addTopics(
                    OffsetCommitRequest.Topic.newBuilder()
                        .setName(topic)
                        .addPartitions(
                            OffsetCommitRequest.Partition.newBuilder()
                                .setPartition(0)
                                .setCommittedOffset(1)
                                .setCommittedLeaderEpoch(-1)
                                .setCommittedMetadata("m")))
                .build()));
    out.add(
        seed(
            ApiKey.OFFSET_FETCH,
            OffsetFetchRequest.newBuilder()
                .addGroups(
                    OffsetFetchRequest.Group.newBuilder().setGroupId(group).setMemberEpoch(-1))
                .build()));
    out.add(seed(ApiKey.LIST_GROUPS, ListGroupsRequest.getDefaultInstance()));
    out.add(
        seed(
            ApiKey.DESCRIBE_GROUPS, DescribeGroupsRequest.newBuilder().addGroupIds(group).build()));
    out.add(
        seed(
            ApiKey.OFFSET_DELETE,
            OffsetDeleteRequest.newBuilder().setGroupId(group).addTopics(tp).build()));
    out.add(
        seed(ApiKey.DELETE_GROUPS, DeleteGroupsRequest.newBuilder().addGroupIds(group).build()));
    return out;
  }

  /** {@code host:port seed requests [topic]}: a campaign against a running Spool listener. */
  public static void main(String[] args) throws IOException {
    FuzzCampaign.main("SpoolRequestFuzzer", SpoolRequestFuzzer::new, args);
  }
}
