package dev.spool.chaos.fuzz;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A seeded, structure-aware fuzzer for a Kafka listener: valid requests (encoded by kafka-clients,
 * the same encoder Kafka's clients use) of the APIs that read, append, delete records or work on
 * groups (of the fuzzer's own topic and group) but change no cluster configuration, each mutated
 * where a decoder is weakest: lengths and counts set to extremes, compact varints made huge, API
 * key and version changed, bytes flipped, the body truncated or extended. A mutant whose API key
 * became one of {@link #CHANGES_CLUSTER} gets its original key back: a DeleteRecords request with
 * one bit flipped is a valid DeleteTopics request naming the fuzzer's topic often enough (about 36
 * in a million mutants) to delete it under a short run. {@link FuzzCampaign} sends them, with a
 * valid ApiVersions request as the sentinel and Metadata as the canary.
 *
 * <p>The same seed gives the same requests. {@code main} runs the long campaign ({@code
 * scripts/kafka-fuzz.sh}); tests run a short one.
 *
 * <p>Threads: one caller; not thread-safe.
 */
public final class KafkaRequestFuzzer implements FuzzCampaign.Dialect {

  /**
   * APIs that create, delete or reconfigure topics, partitions, ACLs, quotas, credentials or
   * features: a mutant never carries their key, so the fuzzer keeps to its own topic and group.
   */
  static final Set<ApiKeys> CHANGES_CLUSTER =
      EnumSet.of(
          ApiKeys.CREATE_TOPICS,
          ApiKeys.DELETE_TOPICS,
          ApiKeys.CREATE_PARTITIONS,
          ApiKeys.ALTER_CONFIGS,
          ApiKeys.INCREMENTAL_ALTER_CONFIGS,
          ApiKeys.ELECT_LEADERS,
          ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
          ApiKeys.ALTER_REPLICA_LOG_DIRS,
          ApiKeys.CREATE_ACLS,
          ApiKeys.DELETE_ACLS,
          ApiKeys.ALTER_CLIENT_QUOTAS,
          ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
          ApiKeys.UPDATE_FEATURES,
          ApiKeys.UNREGISTER_BROKER);

  private final InetSocketAddress target;
  private final Random random;
  private final List<byte[]> seeds;
  private final int readTimeoutMs;

  public KafkaRequestFuzzer(InetSocketAddress target, long seed, String topic, int readTimeoutMs) {
    this.target = target;
    this.random = new Random(seed);
    this.seeds = seeds(topic, random);
    this.readTimeoutMs = readTimeoutMs;
  }

  /** Sends at least {@code requests} mutated requests; throws when the canary goes unanswered. */
  public FuzzCampaign.Result run(long requests) throws IOException {
    return FuzzCampaign.run(target, this, requests, readTimeoutMs);
  }

  private static byte[] frame(byte[] request) {
    return ByteBuffer.allocate(4 + request.length).putInt(request.length).put(request).array();
  }

  @Override
  public byte[] nextMutant() {
    return frame(nextRequest());
  }

  @Override
  public byte[] sentinel() {
    return frame(
        request(new ApiVersionsRequestData(), (short) 0, FuzzCampaign.SENTINEL_CORRELATION));
  }

  @Override
  public byte[] canary(int n) {
    return frame(request(new MetadataRequestData().setTopics(null), (short) 12, n));
  }

  @Override
  public int correlationId(byte[] answer) {
    return ByteBuffer.wrap(answer).getInt(0);
  }

  // ------------------------------------------------------------------ mutations

  /** The next mutated request, without its size field. */
  byte[] nextRequest() {
    return mutate(seeds.get(random.nextInt(seeds.size())));
  }

  private byte[] mutate(byte[] valid) {
    byte[] b = valid.clone();
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      b = mutateOnce(b);
    }
    if (b.length >= 2 && changesCluster(ByteBuffer.wrap(b).getShort(0))) {
      b[0] = valid[0];
      b[1] = valid[1];
    }
    return b;
  }

  static boolean changesCluster(short apiKey) {
    return ApiKeys.hasId(apiKey) && CHANGES_CLUSTER.contains(ApiKeys.forId(apiKey));
  }

  private byte[] mutateOnce(byte[] b) {
    int headerEnd = Math.min(b.length, 8);
    int kind = random.nextInt(9);
    if (b.length < 8 && kind < 7) {
      kind = 7;
    }
    return switch (kind) {
      case 0 -> Mutations.extreme(random, b, 0);
      case 1 -> Mutations.hugeVarint(random, b, headerEnd);
      case 2 -> {
        ByteBuffer.wrap(b).putShort(2, (short) (random.nextInt(22) - 1)); // version
        yield b;
      }
      case 3 -> {
        ByteBuffer.wrap(b).putShort(0, (short) (random.nextInt(80) - 1)); // API key
        yield b;
      }
      case 4, 5 -> Mutations.flipBits(random, b, 0);
      case 6 -> Mutations.repeatSlice(random, b);
      case 7 -> Mutations.truncate(random, b);
      default -> Mutations.appendGarbage(random, b);
    };
  }

  // ------------------------------------------------------------------ seeds

  private static List<byte[]> seeds(String topic, Random random) {
    MemoryRecords batch =
        MemoryRecords.withRecords(
            Compression.NONE,
            new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), "fuzz".getBytes()),
            new SimpleRecord(null, "fuzz-2".getBytes(StandardCharsets.UTF_8)));
    List<byte[]> out = new ArrayList<>();
    out.add(request(new ApiVersionsRequestData(), 0));
    out.add(
        request(
            new ApiVersionsRequestData()
                .setClientSoftwareName("fuzz")
                .setClientSoftwareVersion("1"),
            4));
    out.add(request(new MetadataRequestData().setTopics(null), 1));
    out.add(
        request(
            new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic)))
                .setAllowAutoTopicCreation(false),
            12));
    for (short acks : new short[] {0, 1, -1}) {
      ProduceRequestData.TopicProduceDataCollection topics =
          new ProduceRequestData.TopicProduceDataCollection();
      topics.add(
          new ProduceRequestData.TopicProduceData()
              .setName(topic)
              .setPartitionData(
                  List.of(
                      new ProduceRequestData.PartitionProduceData()
                          .setIndex(0)
                          .setRecords(batch))));
      out.add(
          request(
              new ProduceRequestData().setAcks(acks).setTimeoutMs(1000).setTopicData(topics), 9));
    }
    out.add(
        request(
            new FetchRequestData()
                .setMaxWaitMs(10)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setTopics(
                    List.of(
                        new FetchRequestData.FetchTopic()
                            .setTopic(topic)
                            .setPartitions(
                                List.of(
                                    new FetchRequestData.FetchPartition()
                                        .setPartition(0)
                                        .setFetchOffset(0)
                                        .setPartitionMaxBytes(1 << 20))))),
            12));
    out.add(
        request(
            new ListOffsetsRequestData()
                .setReplicaId(-1)
                .setTopics(
                    List.of(
                        new ListOffsetsRequestData.ListOffsetsTopic()
                            .setName(topic)
                            .setPartitions(
                                List.of(
                                    new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(0)
                                        .setTimestamp(-1))))),
            7));
    OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection ofle =
        new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
    ofle.add(
        new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
            .setTopic(topic)
            .setPartitions(
                List.of(
                    new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                        .setPartition(0)
                        .setLeaderEpoch(0))));
    out.add(request(new OffsetForLeaderEpochRequestData().setTopics(ofle), 4));
    out.add(request(new InitProducerIdRequestData().setTransactionalId(null), 4));
    out.add(request(new DescribeClusterRequestData(), 1));
    out.add(
        request(
            new DescribeConfigsRequestData()
                .setResources(
                    List.of(
                        new DescribeConfigsRequestData.DescribeConfigsResource()
                            .setResourceType((byte) 2)
                            .setResourceName(topic))),
            4));
    out.add(
        request(
            new FetchRequestData()
                .setMaxWaitMs(10)
                .setTopics(
                    List.of(
                        new FetchRequestData.FetchTopic()
                            .setTopicId(new Uuid(random.nextLong(), random.nextLong()))
                            .setPartitions(
                                List.of(new FetchRequestData.FetchPartition().setPartition(0))))),
            17));
    out.addAll(groupSeeds(topic, random));
    out.addAll(recordSeeds(topic));
    return out;
  }

  /**
   * The group APIs, both protocols (the classic ones are answered UNSUPPORTED_VERSION until the
   * listener serves them: their decoding is fuzzed either way), on a group of the fuzzer's own.
   */
  private static List<byte[]> groupSeeds(String topic, Random random) {
    String group = topic + "-group";
    List<byte[]> out = new ArrayList<>();
    out.add(request(new FindCoordinatorRequestData().setKey(group), 2));
    out.add(request(new FindCoordinatorRequestData().setCoordinatorKeys(List.of(group)), 6));
    JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
        new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
    protocols.add(
        new JoinGroupRequestData.JoinGroupRequestProtocol()
            .setName("range")
            .setMetadata(new byte[] {0, 3, 0, 0, 0, 1, 0, 4, 'f', 'u', 'z', 'z'}));
    out.add(
        request(
            new JoinGroupRequestData()
                .setGroupId(group)
                .setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(10_000)
                .setMemberId("")
                .setProtocolType("consumer")
                .setProtocols(protocols),
            9));
    out.add(
        request(
            new SyncGroupRequestData()
                .setGroupId(group)
                .setGenerationId(1)
                .setMemberId("m")
                .setAssignments(
                    List.of(
                        new SyncGroupRequestData.SyncGroupRequestAssignment()
                            .setMemberId("m")
                            .setAssignment(new byte[] {0, 3}))),
            5));
    out.add(
        request(
            new HeartbeatRequestData().setGroupId(group).setGenerationId(1).setMemberId("m"), 4));
    out.add(
        request(
            new LeaveGroupRequestData()
                .setGroupId(group)
                .setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId("m"))),
            5));
    out.add(
        request(
            new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(new Uuid(random.nextLong(), random.nextLong()).toString())
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(10_000)
                .setSubscribedTopicNames(List.of(topic))
                .setTopicPartitions(List.of()),
            1));
    out.add(
        request(
            new OffsetCommitRequestData()
                .setGroupId(group)
                .setGenerationIdOrMemberEpoch(-1)
                .setTopics(
                    List.of(
                        new OffsetCommitRequestData.OffsetCommitRequestTopic()
                            .setName(topic)
                            .setPartitions(
                                List.of(
                                    new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(1)
                                        .setCommittedMetadata("m"))))),
            8));
    out.add(
        request(
            new OffsetFetchRequestData()
                .setGroups(
                    List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestGroup()
                            .setGroupId(group)
                            .setTopics(null))),
            8));
    out.add(request(new ListGroupsRequestData(), 5));
    out.add(request(new DescribeGroupsRequestData().setGroups(List.of(group)), 5));
    out.add(request(new ConsumerGroupDescribeRequestData().setGroupIds(List.of(group)), 1));
    out.add(request(new DeleteGroupsRequestData().setGroupsNames(List.of(group)), 2));
    return out;
  }

  /** DeleteRecords (of the fuzz topic only), DescribeLogDirs, DescribeProducers. */
  private static List<byte[]> recordSeeds(String topic) {
    List<byte[]> out = new ArrayList<>();
    out.add(
        request(
            new DeleteRecordsRequestData()
                .setTimeoutMs(1000)
                .setTopics(
                    List.of(
                        new DeleteRecordsRequestData.DeleteRecordsTopic()
                            .setName(topic)
                            .setPartitions(
                                List.of(
                                    new DeleteRecordsRequestData.DeleteRecordsPartition()
                                        .setPartitionIndex(0)
                                        .setOffset(0))))),
            2));
    out.add(request(new DescribeLogDirsRequestData().setTopics(null), 4));
    DescribeLogDirsRequestData.DescribableLogDirTopicCollection dirs =
        new DescribeLogDirsRequestData.DescribableLogDirTopicCollection();
    dirs.add(
        new DescribeLogDirsRequestData.DescribableLogDirTopic()
            .setTopic(topic)
            .setPartitions(List.of(0)));
    out.add(request(new DescribeLogDirsRequestData().setTopics(dirs), 1));
    DescribeProducersRequestData.TopicRequestCollection producers =
        new DescribeProducersRequestData.TopicRequestCollection();
    producers.add(
        new DescribeProducersRequestData.TopicRequest()
            .setName(topic)
            .setPartitionIndexes(List.of(0)));
    out.add(request(new DescribeProducersRequestData().setTopics(producers), 0));
    return out;
  }

  /** A request without its size field: header at the version's header version, then the body. */
  static byte[] request(ApiMessage body, int version) {
    return request(body, (short) version, 1);
  }

  private static byte[] request(ApiMessage body, short version, int correlationId) {
    ApiKeys key = ApiKeys.forId(body.apiKey());
    RequestHeaderData h =
        new RequestHeaderData()
            .setRequestApiKey(key.id)
            .setRequestApiVersion(version)
            .setCorrelationId(correlationId)
            .setClientId("fuzz");
    short hv = key.requestHeaderVersion(version);
    ObjectSerializationCache cache = new ObjectSerializationCache();
    ByteBuffer b = ByteBuffer.allocate(h.size(cache, hv) + body.size(cache, version));
    ByteBufferAccessor w = new ByteBufferAccessor(b);
    h.write(w, cache, hv);
    body.write(w, cache, version);
    return b.array();
  }

  /** {@code host:port seed requests [topic]}: a campaign against a running Kafka listener. */
  public static void main(String[] args) throws IOException {
    FuzzCampaign.main("KafkaRequestFuzzer", KafkaRequestFuzzer::new, args);
  }
}
