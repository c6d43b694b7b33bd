package dev.spool.broker.request;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.NewerRequestSignal;
import dev.spool.broker.replication.LeaderReplicationThrottle;
import dev.spool.broker.replication.ProduceResult;
import dev.spool.broker.replication.ReplicaRole;
import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import io.netty.channel.DefaultFileRegion;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * Broker 1 of {@link HandlerTestBroker} as the leader of a drain: {@code moving-0} and {@code
 * moving-1} move from broker 1 to brokers 2 and 3 (replicas 2, 3, 1; adding 2, 3; removing 1; ISR
 * 1), {@code moving-2} has broker 2 adding but already in the ISR, and {@code orders-0} (ISR 1, 2)
 * is not moving. Follower fetches go through {@link FetchHandler} as a follower's would; time is a
 * {@link ManualClock}.
 *
 * <p>Threads: the test's.
 */
final class ThrottledLeader implements AutoCloseable {
  static final TopicPartition MOVING_0 = new TopicPartition("moving", 0);
  static final TopicPartition MOVING_1 = new TopicPartition("moving", 1);
  static final TopicPartition MOVING_2 = new TopicPartition("moving", 2);
  static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private static final String MOVING_ID = "9e4d1c2b-7a6f-4b3e-8d2c-1f0e9a8b7c6d";

  final ManualClock clock = new ManualClock(1_000_000L);
  final HandlerTestBroker broker;
  final FetchHandler handler;

  /** One partition of a fetch's answer as the follower sees it. */
  record Answer(ErrorCode error, int recordsSize, long nextOffset, long logEndOffset) {}

  ThrottledLeader(Path dir, long throttleBytesPerSec) {
    broker = new HandlerTestBroker(dir, clock);
    broker.apply(Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.REASSIGNMENT));
    broker.apply(
        Records.topic("moving", MOVING_ID),
        moving(0, List.of(2, 3, 1), List.of(1), List.of(2, 3), List.of(1)),
        moving(1, List.of(2, 3, 1), List.of(1), List.of(2, 3), List.of(1)),
        moving(2, List.of(2, 1), List.of(1, 2), List.of(2), List.of()),
        Records.replicationThrottle(throttleBytesPerSec));
    broker.publish();
    Awaitility.await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                List.of(MOVING_0, MOVING_1, MOVING_2).stream()
                    .allMatch(
                        tp ->
                            broker.replicas().partition(tp).map(p -> p.role()).orElse(null)
                                == ReplicaRole.LEADER));
    handler = new FetchHandler(broker.ctx());
  }

  private static dev.spool.quorum.message.MetadataRecord moving(
      int partition,
      List<Integer> replicas,
      List<Integer> isr,
      List<Integer> adding,
      List<Integer> removing) {
    return Records.partition(
        new PartitionState(
            MOVING_ID, "moving", partition, replicas, isr, 1, 0, 0, adding, removing));
  }

  LeaderReplicationThrottle throttle() {
    return broker.replicas().leaderThrottle();
  }

  /** Sets the cluster's throttle and waits until the replicas' image has it. */
  void setThrottle(long bytesPerSec) {
    broker.apply(Records.replicationThrottle(bytesPerSec));
    broker.publish();
    Awaitility.await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> broker.replicas().image().replicationThrottleBytesPerSec() == bytesPerSec);
  }

  /** Appends {@code batches} batches of {@code records} records (~100 B each) on the leader. */
  void append(TopicPartition tp, int batches, int records) throws Exception {
    for (int b = 0; b < batches; b++) {
      RecordBatchBuilder builder = new RecordBatchBuilder(4096).baseOffset(0);
      for (int i = 0; i < records; i++) {
        builder.append(clock.nowMs(), ("k" + i).getBytes(), "v".repeat(90).getBytes());
      }
      ProduceResult r =
          broker
              .replicas()
              .appendRecords(tp, builder.build(), 1, -1, 5000)
              .get(5, TimeUnit.SECONDS);
      assertEquals(ErrorCode.NONE, r.error(), r.message());
    }
  }

  static FetchRequest request(
      int replicaId,
      long brokerEpoch,
      int maxWaitMs,
      int partitionMaxBytes,
      Map<TopicPartition, Long> offsets) {
    FetchRequest.Builder b =
        FetchRequest.newBuilder()
            .setReplicaId(replicaId)
            .setBrokerEpoch(brokerEpoch)
            .setMaxWaitMs(maxWaitMs)
            .setMinBytes(1)
            .setMaxBytes(10 << 20);
    Map<String, FetchRequest.FetchTopic.Builder> topics = new LinkedHashMap<>();
    offsets.forEach(
        (tp, offset) ->
            topics
                .computeIfAbsent(tp.topic(), t -> FetchRequest.FetchTopic.newBuilder().setName(t))
                .addPartitions(
                    FetchRequest.FetchPartition.newBuilder()
                        .setPartition(tp.partition())
                        .setFetchOffset(offset)
                        .setCurrentLeaderEpoch(-1)
                        .setLastFetchedEpoch(-1)
                        .setPartitionMaxBytes(partitionMaxBytes)));
    topics.values().forEach(b::addTopics);
    return b.build();
  }

  /** Sends a fetch without waiting (max_wait_ms 0) and reads its answer. */
  Map<TopicPartition, Answer> fetch(
      int replicaId, int partitionMaxBytes, Map<TopicPartition, Long> offsets) throws Exception {
    return answers(start(replicaId, 0, partitionMaxBytes, offsets).get(5, TimeUnit.SECONDS));
  }

  /** Like {@link #fetch}, each partition from offset 0. */
  Map<TopicPartition, Answer> fetchFromStart(int replicaId, TopicPartition... tps)
      throws Exception {
    Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
    for (TopicPartition tp : tps) {
      offsets.put(tp, 0L);
    }
    return fetch(replicaId, 1 << 20, offsets);
  }

  CompletableFuture<BrokerResponse> start(
      int replicaId, int maxWaitMs, int partitionMaxBytes, Map<TopicPartition, Long> offsets) {
    long epoch = replicaId < 0 ? -1 : broker.image().broker(replicaId).epoch();
    return handler.fetch(
        request(replicaId, epoch, maxWaitMs, partitionMaxBytes, offsets),
        new NewerRequestSignal(),
        dev.spool.broker.security.Caller.of(null, null));
  }

  /**
   * The answer per partition: error, records size and the offset after its last batch (the fetch
   * offset the follower would send next; -1 without records). Releases the record parts.
   */
  static Map<TopicPartition, Answer> answers(BrokerResponse r) throws IOException {
    FetchResponse body = (FetchResponse) r.body();
    assertEquals(ErrorCode.NONE, body.getErrorCode(), body.getErrorMessage());
    Map<TopicPartition, Answer> out = new HashMap<>();
    int part = 0;
    for (FetchResponse.TopicResponse t : body.getTopicsList()) {
      for (FetchResponse.PartitionResponse p : t.getPartitionsList()) {
        long next = -1;
        if (p.getRecordsSize() > 0) {
          DefaultFileRegion region = (DefaultFileRegion) r.recordParts().get(part++);
          next = nextOffset(region);
        }
        out.put(
            new TopicPartition(t.getName(), p.getPartition()),
            new Answer(p.getErrorCode(), p.getRecordsSize(), next, p.getLogEndOffset()));
      }
    }
    r.recordParts().forEach(ReferenceCountUtil::release);
    return out;
  }

  private static long nextOffset(DefaultFileRegion region) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    WritableByteChannel sink = Channels.newChannel(bytes);
    long done = 0;
    while (done < region.count()) {
      done += region.transferTo(sink, done);
    }
    long next = -1;
    for (RecordBatch batch : MemoryRecords.wrap(ByteBuffer.wrap(bytes.toByteArray()))) {
      next = batch.nextOffset();
    }
    return next;
  }

  @Override
  public void close() {
    broker.close();
  }
}
