package dev.spool.chaos.fuzz;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
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
 * in a million mutants) to delete it under a short run. Requests go pipelined in rounds of {@link
 * #ROUND} followed by a valid ApiVersions sentinel; a round ends at the sentinel's answer or when
 * the broker closes the connection (the answer to a malformed request). A canary connection sends a
 * valid Metadata request between rounds and must be answered every time: one connection's garbage
 * must never cost another client.
 *
 * <p>The same seed gives the same requests. {@code main} runs the long campaign ({@code
 * scripts/kafka-fuzz.sh}); tests run a short one.
 *
 * <p>Threads: one caller; not thread-safe.
 */
public final class KafkaRequestFuzzer {
  /** Mutated requests per round before the sentinel. */
  static final int ROUND = 4;

  private static final int SENTINEL_CORRELATION = Integer.MAX_VALUE;

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

  private static final int[] EXTREMES = {-1, 0, 1, 0x7fff, 0x8000, 0x7fffffff, 0x80000000, 0xffff};

  /** Outcome of a campaign. */
  public record Result(long sent, long answered, long closes, long canaryChecks) {}

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
  public Result run(long requests) throws IOException {
    long sent = 0;
    long answered = 0;
    long closes = 0;
    long canary = 0;
    long rounds = 0;
    try (Conn health = new Conn(target, readTimeoutMs)) {
      Conn c = null;
      try {
        while (sent < requests) {
          if (c == null) {
            c = new Conn(target, readTimeoutMs);
          }
          for (int i = 0; i < ROUND; i++) {
            if (!c.trySend(frame(nextMutant()))) {
              break;
            }
            sent++;
          }
          c.trySend(frame(sentinel()));
          int got = c.readUntilSentinel();
          if (got < 0) {
            closes++;
            c.close();
            c = null;
          } else {
            answered += got;
          }
          if (++rounds % 16 == 0) {
            health.checkCanary(canary++);
          }
        }
        health.checkCanary(canary++);
      } finally {
        if (c != null) {
          c.close();
        }
      }
    }
    return new Result(sent, answered, closes, canary);
  }

  private static byte[] frame(byte[] request) {
    return ByteBuffer.allocate(4 + request.length).putInt(request.length).put(request).array();
  }

  // ------------------------------------------------------------------ mutations

  /** The next mutated request, without its size field. */
  byte[] nextMutant() {
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
    switch (kind) {
      case 0 -> { // a length, count or int field at a random place set to an extreme
        int at = random.nextInt(Math.max(1, b.length - 3));
        int v = EXTREMES[random.nextInt(EXTREMES.length)];
        if (random.nextBoolean() && at + 4 <= b.length) {
          ByteBuffer.wrap(b).putInt(at, v);
        } else if (at + 2 <= b.length) {
          ByteBuffer.wrap(b).putShort(at, (short) v);
        }
      }
      case 1 -> { // a compact length or count (unsigned varint) made huge
        int at = headerEnd + random.nextInt(Math.max(1, b.length - headerEnd));
        byte[] varint = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f};
        System.arraycopy(varint, 0, b, at, Math.min(varint.length, b.length - at));
      }
      case 2 -> ByteBuffer.wrap(b).putShort(2, (short) (random.nextInt(22) - 1)); // version
      case 3 -> ByteBuffer.wrap(b).putShort(0, (short) (random.nextInt(80) - 1)); // API key
      case 4, 5 -> { // bits flipped
        int flips = 1 + random.nextInt(4);
        for (int i = 0; i < flips; i++) {
          b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
        }
      }
      case 6 -> { // a slice repeated (arrays with an element too many)
        int from = random.nextInt(b.length);
        int len = 1 + random.nextInt(Math.min(32, b.length - from));
        byte[] out = Arrays.copyOf(b, b.length + len);
        System.arraycopy(b, from, out, from + len, b.length - from);
        b = out;
      }
      case 7 -> b = Arrays.copyOf(b, random.nextInt(b.length + 1)); // truncated
      default -> { // garbage appended
        byte[] tail = new byte[1 + random.nextInt(64)];
        random.nextBytes(tail);
        byte[] out = Arrays.copyOf(b, b.length + tail.length);
        System.arraycopy(tail, 0, out, b.length, tail.length);
        b = out;
      }
    }
    return b;
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

  private static byte[] sentinel() {
    return request(new ApiVersionsRequestData(), (short) 0, SENTINEL_CORRELATION);
  }

  // ------------------------------------------------------------------ connections

  /** One blocking connection. */
  private static final class Conn implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    Conn(InetSocketAddress target, int readTimeoutMs) throws IOException {
      socket = new Socket();
      socket.connect(target, readTimeoutMs);
      socket.setSoTimeout(readTimeoutMs);
      socket.setTcpNoDelay(true);
      in = new DataInputStream(socket.getInputStream());
      out = socket.getOutputStream();
    }

    /** False when the broker has closed the connection already. */
    boolean trySend(byte[] frame) {
      try {
        out.write(frame);
        return true;
      } catch (IOException e) {
        return false;
      }
    }

    /**
     * Reads answers until the sentinel's; their number, or -1 when the connection closed (or the
     * sentinel never came: a request held it back, e.g. a frame whose size field promised more).
     */
    int readUntilSentinel() {
      int answers = 0;
      try {
        out.flush();
        while (true) {
          int size = in.readInt();
          if (size < 4) {
            throw new IllegalStateException("answer of size " + size);
          }
          int correlationId = in.readInt();
          in.skipNBytes(size - 4);
          if (correlationId == SENTINEL_CORRELATION) {
            return answers;
          }
          answers++;
        }
      } catch (EOFException | SocketTimeoutException e) {
        return -1;
      } catch (IOException e) {
        return -1; // reset by the broker
      }
    }

    void checkCanary(long n) throws IOException {
      byte[] m = request(new MetadataRequestData().setTopics(null), (short) 12, (int) n);
      out.write(frame(m));
      out.flush();
      int size;
      try {
        size = in.readInt();
      } catch (IOException e) {
        throw new IOException("canary request " + n + " went unanswered: " + e, e);
      }
      int correlationId = in.readInt();
      in.skipNBytes(size - 4);
      if (correlationId != (int) n) {
        throw new IOException("canary answer " + correlationId + " for request " + n);
      }
    }

    @Override
    public void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // closing a broken socket: nothing to keep
      }
    }
  }

  /** {@code host:port seed requests [topic]}: a campaign against a running Kafka listener. */
  public static void main(String[] args) throws IOException {
    if (args.length < 3) {
      System.err.println("usage: KafkaRequestFuzzer host:port seed requests [topic]");
      System.exit(2);
    }
    String[] hp = args[0].split(":");
    InetSocketAddress target = new InetSocketAddress(hp[0], Integer.parseInt(hp[1]));
    long seed = Long.parseLong(args[1]);
    long requests = Long.parseLong(args[2]);
    String topic = args.length > 3 ? args[3] : "fuzz";
    long start = System.nanoTime();
    Result r = new KafkaRequestFuzzer(target, seed, topic, 5_000).run(requests);
    double secs = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "fuzz seed %d: %d mutated requests in %.1f s (%.0f/s), %d answered, %d connections"
            + " closed by the broker, %d canary requests answered%n",
        seed, r.sent(), secs, r.sent() / secs, r.answered(), r.closes(), r.canaryChecks());
  }
}
