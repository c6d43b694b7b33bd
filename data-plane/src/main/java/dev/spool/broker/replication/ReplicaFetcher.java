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
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  private final int brokerId;
  private final int sourceBrokerId;
  private final ReplicaFetcherManager.Settings settings;
  private final NetworkClient client;
  private final ReplicaManager replicas;
  private final Clock clock;
  private final ConcurrentHashMap<TopicPartition, Fetched> partitions = new ConcurrentHashMap<>();
  private final String logPrefix;
  // I/O thread only:
  private boolean inFlight;
  private boolean scheduled;
  private volatile boolean closed;

  ReplicaFetcher(
      int brokerId,
      int sourceBrokerId,
      ReplicaFetcherManager.Settings settings,
      NetworkClient client,
      ReplicaManager replicas,
      Clock clock) {
    this.brokerId = brokerId;
    this.sourceBrokerId = sourceBrokerId;
    this.settings = settings;
    this.client = client;
    this.replicas = replicas;
    this.clock = clock;
    this.logPrefix = "[node=" + brokerId + " fetcher=" + sourceBrokerId + "]";
  }

  void add(Partition p) {
    partitions.put(p.topicPartition(), new Fetched(p));
    client.eventLoop().execute(this::maybeFetch);
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

  private void scheduleFetch(long delayMs) {
    if (closed || scheduled) {
      return;
    }
    scheduled = true;
    client
        .eventLoop()
        .schedule(
            () -> {
              scheduled = false;
              maybeFetch();
            },
            Math.max(1, delayMs),
            TimeUnit.MILLISECONDS);
  }

  private void maybeFetch() {
    if (closed || inFlight) {
      return;
    }
    long nowMs = clock.monotonicMs();
    Map<TopicPartition, FollowerFetchState> sent = new LinkedHashMap<>();
    long nextDelay = Long.MAX_VALUE;
    for (Map.Entry<TopicPartition, Fetched> e : partitions.entrySet()) {
      Fetched f = e.getValue();
      if (f.delayedUntilMs > nowMs) {
        nextDelay = Math.min(nextDelay, f.delayedUntilMs - nowMs);
        continue;
      }
      f.partition
          .followerFetchState()
          .filter(s -> s.leaderId() == sourceBrokerId)
          .ifPresent(s -> sent.put(e.getKey(), s));
    }
    if (sent.isEmpty()) {
      if (!partitions.isEmpty()) {
        scheduleFetch(nextDelay == Long.MAX_VALUE ? settings.backoffMs() : nextDelay);
      }
      return;
    }
    BrokerRegistration leader = replicas.image().broker(sourceBrokerId);
    if (leader == null) {
      scheduleFetch(settings.backoffMs());
      return;
    }
    inFlight = true;
    Node node = new Node(sourceBrokerId, leader.host(), leader.port());
    client
        .send(
            node,
            ApiKey.FETCH,
            buildRequest(sent),
            null,
            settings.maxWaitMs() + settings.requestTimeoutMs(),
            true)
        .whenComplete((resp, err) -> client.eventLoop().execute(() -> onResponse(sent, resp, err)));
  }

  private FetchRequest buildRequest(Map<TopicPartition, FollowerFetchState> sent) {
    FetchRequest.Builder b =
        FetchRequest.newBuilder()
            .setReplicaId(brokerId)
            .setBrokerEpoch(replicas.brokerEpoch())
            .setMaxWaitMs(settings.maxWaitMs())
            .setMinBytes(settings.minBytes())
            .setMaxBytes(settings.responseMaxBytes());
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
                        .setPartitionMaxBytes(settings.partitionMaxBytes())));
    topics.values().forEach(t -> b.addTopics(t));
    return b.build();
  }

  private void onResponse(
      Map<TopicPartition, FollowerFetchState> sent, ClientResponse resp, Throwable err) {
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
    ByteBuf data = resp.recordData();
    int position = data.readerIndex();
    List<TopicPartition> tps = new ArrayList<>();
    List<Answer> answers = new ArrayList<>();
    for (FetchResponse.TopicResponse t : body.getTopicsList()) {
      for (FetchResponse.PartitionResponse pr : t.getPartitionsList()) {
        int size = Math.max(0, pr.getRecordsSize());
        if (position + size > data.writerIndex()) {
          log.warn("{} answer declares more record data than it carries; dropping it", logPrefix);
          resp.close();
          inFlight = false;
          scheduleFetch(settings.backoffMs());
          return;
        }
        ByteBuffer records = size == 0 ? ByteBuffer.allocate(0) : data.nioBuffer(position, size);
        position += size;
        TopicPartition tp = new TopicPartition(t.getName(), pr.getPartition());
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
                client
                    .eventLoop()
                    .execute(
                        () -> {
                          resp.close();
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
