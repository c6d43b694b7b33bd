package dev.spool.broker.replication;

import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.network.ClientResponse;
import dev.spool.network.NetworkClient;
import dev.spool.network.Node;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ObjLongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches every partition this broker follows from one leader broker, one fetch in flight at a
 * time: (fetch offset = log end offset, last fetched epoch, current leader epoch, broker epoch).
 * Each partition's answer is handed to its owner worker ({@link Partition#processFetchResponse}),
 * which appends, truncates on a diverging epoch or after OFFSET_OUT_OF_RANGE, and moves the
 * follower's high watermark; the next fetch goes out when every partition is done (the record data
 * lives in the response buffer until then). A partition whose fetch failed waits {@code backoffMs};
 * one that went offline is dropped.
 *
 * <p>Replication throttle (Kafka's follower quota): a partition for which this broker is an adding
 * replica of a reassignment and not yet in the ISR is <em>throttled</em> while the image sets a
 * {@code replicationThrottleBytesPerSec}. The record bytes received for throttled partitions are
 * counted in the broker's {@link ReplicationQuota}, shared by all fetchers; while it is in debt the
 * throttled partitions are left out of the request (the others are fetched as usual, with a long
 * poll no longer than the bucket's refill time), and a request with only throttled partitions waits
 * exactly until the bucket has refilled. A throttled partition asks for at most its share of one
 * burst ({@link ReplicationQuota#partitionMaxBytes}). Without a throttle all this costs one read of
 * the rate per fetch.
 *
 * <p>Threads: runs on the network client's I/O thread; {@link #add}/{@link #remove} from any thread
 * (the partition map is concurrent).
 */
final class ReplicaFetcher {
  private static final Logger log = LoggerFactory.getLogger(ReplicaFetcher.class);

  private static final class Fetched {
    final Partition partition;
    volatile long delayedUntilMs;
    // The leader's log end offset in its last answer; written on the owner worker, read by scrapes.
    volatile long leaderLogEndOffset = -1;

    Fetched(Partition partition) {
      this.partition = partition;
    }
  }

  /**
   * The fetcher's side of the network: its I/O thread and the fetch call. {@link #of} adapts the
   * broker's {@link NetworkClient}; tests drive both by hand.
   */
  interface Io {
    void execute(Runnable task);

    void schedule(Runnable task, long delayMs);

    CompletableFuture<ClientResponse> send(Node leader, FetchRequest request, long timeoutMs);

    static Io of(NetworkClient client) {
      return new Io() {
        @Override
        public void execute(Runnable task) {
          client.eventLoop().execute(task);
        }

        @Override
        public void schedule(Runnable task, long delayMs) {
          client.eventLoop().schedule(task, delayMs, TimeUnit.MILLISECONDS);
        }

        @Override
        public CompletableFuture<ClientResponse> send(
            Node leader, FetchRequest request, long timeoutMs) {
          return client.send(leader, ApiKey.FETCH, request, null, timeoutMs, true);
        }
      };
    }
  }

  private final int brokerId;
  private final int sourceBrokerId;
  private final ReplicaFetcherManager.Settings settings;
  private final Io io;
  private final ReplicaManager replicas;
  private final Clock clock;
  private final ReplicationQuota quota;
  private final ConcurrentHashMap<TopicPartition, Fetched> partitions = new ConcurrentHashMap<>();
  private final String logPrefix;
  // I/O thread only:
  private boolean inFlight;
  private boolean scheduled;
  private volatile boolean closed;
  // Since when this fetcher has waited for an answer from its leader without getting one (sent
  // fetches that went unanswered, failed, or could not connect); -1 while it is answered or has
  // nothing to fetch. Written on the I/O thread, read by the heartbeat's report.
  private volatile long waitingSinceMs = -1L;

  ReplicaFetcher(
      int brokerId,
      int sourceBrokerId,
      ReplicaFetcherManager.Settings settings,
      Io io,
      ReplicaManager replicas,
      Clock clock,
      ReplicationQuota quota) {
    this.brokerId = brokerId;
    this.sourceBrokerId = sourceBrokerId;
    this.settings = settings;
    this.io = io;
    this.replicas = replicas;
    this.clock = clock;
    this.quota = quota;
    this.logPrefix = "[node=" + brokerId + " fetcher=" + sourceBrokerId + "]";
  }

  void add(Partition p) {
    partitions.put(p.topicPartition(), new Fetched(p));
    io.execute(this::maybeFetch);
  }

  void remove(TopicPartition tp) {
    partitions.remove(tp);
  }

  boolean isEmpty() {
    return partitions.isEmpty();
  }

  int size() {
    return partitions.size();
  }

  void close() {
    closed = true;
    partitions.clear();
  }

  /**
   * Since when this fetcher has wanted an answer from its leader and got none, or -1 when its last
   * fetch was answered or it has nothing to fetch. Any thread.
   */
  long waitingSinceMs() {
    return waitingSinceMs;
  }

  private void scheduleFetch(long delayMs) {
    if (closed || scheduled) {
      return;
    }
    scheduled = true;
    io.schedule(
        () -> {
          scheduled = false;
          maybeFetch();
        },
        Math.max(1, delayMs));
  }

  private void maybeFetch() {
    if (closed || inFlight) {
      return;
    }
    long nowMs = clock.monotonicMs();
    // Without a throttle (rate 0) nothing below looks at partition states or the bucket.
    MetadataImage throttleImage = quota.bytesPerSec() > 0 ? replicas.image() : null;
    long quotaDelayMs = throttleImage == null ? 0 : quota.delayMs();
    Map<TopicPartition, FollowerFetchState> sent = new LinkedHashMap<>();
    Set<TopicPartition> throttled = throttleImage == null ? Set.of() : new HashSet<>();
    boolean throttledLeftOut = false;
    long nextDelay = Long.MAX_VALUE;
    for (Map.Entry<TopicPartition, Fetched> e : partitions.entrySet()) {
      Fetched f = e.getValue();
      if (f.delayedUntilMs > nowMs) {
        nextDelay = Math.min(nextDelay, f.delayedUntilMs - nowMs);
        continue;
      }
      Optional<FollowerFetchState> state =
          f.partition.followerFetchState().filter(s -> s.leaderId() == sourceBrokerId);
      if (state.isEmpty()) {
        continue;
      }
      if (throttleImage != null
          && ReplicationQuota.throttles(throttleImage, e.getKey(), brokerId)) {
        if (quotaDelayMs > 0) {
          // Over quota: left out until the bucket has refilled (Kafka's shouldFollowerThrottle).
          throttledLeftOut = true;
          nextDelay = Math.min(nextDelay, quotaDelayMs);
          continue;
        }
        throttled.add(e.getKey());
      }
      sent.put(e.getKey(), state.get());
    }
    if (sent.isEmpty()) {
      waitingSinceMs = -1L;
      if (!partitions.isEmpty()) {
        scheduleFetch(nextDelay == Long.MAX_VALUE ? settings.backoffMs() : nextDelay);
      }
      return;
    }
    BrokerRegistration leader = replicas.image().broker(sourceBrokerId);
    if (leader == null) {
      waitingSinceMs = -1L;
      scheduleFetch(settings.backoffMs());
      return;
    }
    inFlight = true;
    if (waitingSinceMs < 0) {
      waitingSinceMs = nowMs;
    }
    Node node = new Node(sourceBrokerId, leader.host(), leader.port());
    // Throttled partitions wait for the bucket: the long poll of the others must not keep them out
    // longer than that.
    int maxWaitMs =
        throttledLeftOut
            ? (int) Math.min(settings.maxWaitMs(), quotaDelayMs)
            : settings.maxWaitMs();
    io.send(
            node,
            buildRequest(sent, throttled, maxWaitMs),
            settings.maxWaitMs() + settings.requestTimeoutMs())
        .whenComplete((resp, err) -> io.execute(() -> onResponse(sent, throttled, resp, err)));
  }

  private FetchRequest buildRequest(
      Map<TopicPartition, FollowerFetchState> sent, Set<TopicPartition> throttled, int maxWaitMs) {
    FetchRequest.Builder b =
        FetchRequest.newBuilder()
            .setReplicaId(brokerId)
            .setBrokerEpoch(replicas.brokerEpoch())
            .setMaxWaitMs(maxWaitMs)
            .setMinBytes(settings.minBytes())
            .setMaxBytes(settings.responseMaxBytes());
    int throttledMaxBytes =
        throttled.isEmpty()
            ? settings.partitionMaxBytes()
            : quota.partitionMaxBytes(settings.partitionMaxBytes(), throttled.size());
    Map<String, FetchRequest.FetchTopic.Builder> topics = new LinkedHashMap<>();
    sent.forEach(
        (tp, s) ->
            topics
                .computeIfAbsent(tp.topic(), t -> FetchRequest.FetchTopic.newBuilder().setName(t))
                .addPartitions(
                    FetchRequest.FetchPartition.newBuilder()
                        .setPartition(tp.partition())
                        .setFetchOffset(s.fetchOffset())
                        .setCurrentLeaderEpoch(s.leaderEpoch())
                        .setLastFetchedEpoch(s.lastFetchedEpoch())
                        .setLogStartOffset(s.logStartOffset())
                        .setPartitionMaxBytes(
                            throttled.contains(tp)
                                ? throttledMaxBytes
                                : settings.partitionMaxBytes())));
    topics.values().forEach(t -> b.addTopics(t));
    return b.build();
  }

  private void onResponse(
      Map<TopicPartition, FollowerFetchState> sent,
      Set<TopicPartition> throttled,
      ClientResponse resp,
      Throwable err) {
    if (resp != null) {
      waitingSinceMs = -1L; // the leader answered, whatever it said
    }
    if (err != null || resp.header().getErrorCode() != ErrorCode.NONE) {
      if (resp != null) {
        resp.close();
      }
      log.debug(
          "{} fetch failed: {}",
          logPrefix,
          err != null
              ? err.toString()
              : resp.header().getErrorCode() + " " + resp.header().getErrorMessage());
      inFlight = false;
      scheduleFetch(settings.backoffMs());
      return;
    }
    FetchResponse body = resp.body(FetchResponse.class);
    if (body.getErrorCode() != ErrorCode.NONE) {
      log.info("{} fetch refused: {} {}", logPrefix, body.getErrorCode(), body.getErrorMessage());
      resp.close();
      inFlight = false;
      scheduleFetch(settings.backoffMs());
      return;
    }
    onAnswer(sent, throttled, body, resp.recordData(), resp::close);
  }

  /**
   * Hands a successful answer's partitions to their owners, counts the throttled partitions' bytes
   * against the quota and sends the next fetch once all are done, after {@code release} (which
   * frees {@code data}). I/O thread; package-private so tests can answer a fetch without a socket.
   */
  void onAnswer(
      Map<TopicPartition, FollowerFetchState> sent,
      Set<TopicPartition> throttled,
      FetchResponse body,
      ByteBuf data,
      Runnable release) {
    waitingSinceMs = -1L;
    int position = data.readerIndex();
    List<TopicPartition> tps = new ArrayList<>();
    List<Answer> answers = new ArrayList<>();
    for (FetchResponse.TopicResponse t : body.getTopicsList()) {
      for (FetchResponse.PartitionResponse pr : t.getPartitionsList()) {
        int size = Math.max(0, pr.getRecordsSize());
        if (position + size > data.writerIndex()) {
          log.warn("{} answer declares more record data than it carries; dropping it", logPrefix);
          release.run();
          inFlight = false;
          scheduleFetch(settings.backoffMs());
          return;
        }
        ByteBuffer records = size == 0 ? ByteBuffer.allocate(0) : data.nioBuffer(position, size);
        position += size;
        TopicPartition tp = new TopicPartition(t.getName(), pr.getPartition());
        if (throttled.contains(tp)) {
          quota.record(size);
        }
        FollowerFetchState state = sent.get(tp);
        Fetched f = partitions.get(tp);
        if (state == null || f == null) {
          continue;
        }
        tps.add(tp);
        answers.add(new Answer(tp, f, state, pr, records));
      }
    }
    // One task per partition worker for the whole answer (ReplicaManager.onPartitions).
    replicas
        .onPartitions(
            tps,
            (p, i) -> {
              Answer a = answers.get(i);
              if (p
                  == a.fetched()
                      .partition) { // else the replica was replaced or removed meanwhile: stale
                apply(a.tp(), a.fetched(), a.state(), a.response(), a.records());
              }
            },
            i ->
                answers.get(i).fetched().delayedUntilMs =
                    clock.monotonicMs() + settings.backoffMs())
        .whenComplete(
            (v, e) ->
                io.execute(
                    () -> {
                      release.run();
                      inFlight = false;
                      maybeFetch();
                    }));
  }

  /** One partition's part of an answer, waiting for its owner thread. */
  private record Answer(
      TopicPartition tp,
      Fetched fetched,
      FollowerFetchState state,
      FetchResponse.PartitionResponse response,
      ByteBuffer records) {}

  /** See {@link ReplicaFetcherManager#forEachLag}. */
  void forEachLag(ObjLongConsumer<TopicPartition> lag) {
    partitions.forEach(
        (tp, f) -> {
          long leaderEnd = f.leaderLogEndOffset;
          if (leaderEnd >= 0) {
            lag.accept(tp, Math.max(0, leaderEnd - f.partition.log().logEndOffset()));
          }
        });
  }

  /** Applies one partition's answer; owner thread. */
  private void apply(
      TopicPartition tp,
      Fetched f,
      FollowerFetchState state,
      FetchResponse.PartitionResponse pr,
      ByteBuffer records) {
    EpochEndOffset diverging =
        pr.hasDivergingEpoch()
            ? new EpochEndOffset(
                pr.getDivergingEpoch().getEpoch(), pr.getDivergingEpoch().getEndOffset())
            : null;
    if (pr.getLogEndOffset() >= 0) {
      f.leaderLogEndOffset = pr.getLogEndOffset();
    }
    Partition.FollowerOutcome outcome;
    try {
      outcome =
          f.partition.processFetchResponse(
              state,
              pr.getErrorCode(),
              pr.getErrorMessage(),
              pr.getHighWatermark(),
              pr.getLogStartOffset(),
              pr.getLogEndOffset(),
              diverging,
              records);
    } catch (RuntimeException e) {
      log.error("{} applying the answer for {} failed", logPrefix, tp, e);
      outcome = Partition.FollowerOutcome.RETRY_LATER;
    }
    if (outcome == Partition.FollowerOutcome.RETRY_LATER) {
      f.delayedUntilMs = clock.monotonicMs() + settings.backoffMs();
    } else if (outcome == Partition.FollowerOutcome.OFFLINE) {
      partitions.remove(tp, f);
    }
  }
}
