package dev.spool.client.internal.producer;

import dev.spool.client.internal.metadata.Metadata;
import dev.spool.client.internal.metadata.MetadataRefresher;
import dev.spool.client.internal.metadata.MetadataSnapshot;
import dev.spool.client.internal.metadata.PartitionInfo;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.Errors;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.ClientResponse;
import dev.spool.network.ExponentialBackoff;
import dev.spool.network.NetworkClient;
import dev.spool.network.Node;
import dev.spool.network.WakeupTimer;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.InitProducerIdRequest;
import dev.spool.protocol.message.InitProducerIdResponse;
import dev.spool.protocol.message.ProduceRequest;
import dev.spool.protocol.message.ProduceResponse;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer's I/O-thread loop (Kafka's Sender): get a producer id when idempotent, find the
 * nodes with something ready, drain one batch per partition per request, send produce requests,
 * apply the answers through {@link ProduceState}, expire batches past {@code delivery.timeout.ms},
 * and arm a timer for the next time something becomes ready (linger, backoff). It runs when woken:
 * by appends that create or fill a batch, by responses, by connections becoming ready and by
 * metadata changes. Everything here runs on the network client's I/O thread.
 */
public final class Sender implements NetworkClient.ConnectionListener {
  private static final Logger log = LoggerFactory.getLogger(Sender.class);

  /**
   * The broker may take {@code timeout_ms} to answer an acks=all produce; the client waits this
   * much longer so that the broker's REQUEST_TIMED_OUT arrives before the connection is dropped.
   */
  private static final long RESPONSE_GRACE_MS = 1000;

  /** The sender's settings from the producer config. */
  public record Settings(
      short acks,
      long requestTimeoutMs,
      int maxRequestSizeBytes,
      int maxInFlightRequestsPerConnection,
      ExponentialBackoff retryBackoff) {}

  private final Settings settings;
  private final RecordAccumulator accumulator;
  private final ProduceState state;
  private final Metadata metadata;
  private final MetadataRefresher refresher;
  private final NetworkClient network;
  private final Clock clock;
  private final ProducerStats stats;
  private final AtomicBoolean wakeupPending = new AtomicBoolean();
  private volatile RuntimeException fatalError;
  // I/O thread only:
  private final WakeupTimer timer;
  private boolean initInFlight;
  private int initFailures;
  private long initRetryAtMs;
  private boolean stopped;

  public Sender(
      Settings settings,
      RecordAccumulator accumulator,
      ProduceState state,
      Metadata metadata,
      MetadataRefresher refresher,
      NetworkClient network,
      Clock clock,
      ProducerStats stats) {
    this.settings = settings;
    this.accumulator = accumulator;
    this.state = state;
    this.metadata = metadata;
    this.refresher = refresher;
    this.network = network;
    this.clock = clock;
    this.timer = new WakeupTimer(network.eventLoop(), clock, this::runOnce);
    this.stats = stats;
    network.addListener(this);
    metadata.addUpdateListener(this::wakeup);
  }

  /** The error that made the producer unusable (InitProducerId refused), or {@code null}. */
  public RuntimeException fatalError() {
    return fatalError;
  }

  /** Runs the loop soon on the I/O thread; any thread, coalesced. */
  public void wakeup() {
    if (!wakeupPending.compareAndSet(false, true)) {
      return;
    }
    try {
      network
          .eventLoop()
          .execute(
              () -> {
                wakeupPending.set(false);
                runOnce();
              });
    } catch (RejectedExecutionException e) {
      wakeupPending.set(false);
    }
  }

  @Override
  public void onReady(Node node) {
    runOnce();
  }

  @Override
  public void onDisconnected(Node node, SpoolException cause) {
    wakeup();
  }

  /** One pass of the loop. */
  void runOnce() {
    if (stopped) {
      return;
    }
    long now = clock.monotonicMs();
    if (state.needsProducerId()) {
      maybeInitProducerId(now);
    }
    MetadataSnapshot md = metadata.snapshot();
    RecordAccumulator.ReadyCheck ready = accumulator.ready(md, now, state);
    if (!ready.unknownLeaderTopics().isEmpty()) {
      metadata.requestUpdate();
    }
    Set<Node> sendable = new LinkedHashSet<>();
    boolean leaderUnreachable = false;
    for (Node n : ready.readyNodes()) {
      // The connection allows one more request than the producer config, for metadata.
      if (network.ready(n)
          && network.inFlightCount(n.id()) < settings.maxInFlightRequestsPerConnection()) {
        sendable.add(n);
      } else if (network.reconnectDelayMs(n) > 0) {
        leaderUnreachable = true;
      }
    }
    if (leaderUnreachable) {
      // Records wait for a leader we cannot reach (it may be dead): keep asking the cluster who
      // leads, at the metadata refresh backoff, rather than only when a reconnect attempt fails
      // (those back off to reconnect.backoff.max.ms and would delay the failover by as much).
      metadata.requestUpdate();
    }
    Map<Node, List<ProducerBatch>> drained =
        accumulator.drain(md, sendable, settings.maxRequestSizeBytes(), now, state);
    for (ProducerBatch expired : accumulator.expiredBatches(now, state::mayExpire)) {
      state.onExpired(expired, now);
    }
    drained.forEach((node, batches) -> sendProduce(node, batches, md, now));
    long next = ready.nextReadyCheckDelayMs();
    if (state.needsProducerId()
        && !initInFlight
        && state.canInitProducerId()
        && initRetryAtMs > now) {
      // A failed InitProducerId is retried after its backoff; a pending reset waits for answers
      // instead.
      next = Math.min(next, initRetryAtMs - now);
    }
    if (next != Long.MAX_VALUE) {
      timer.wakeAt(now + next);
    }
  }

  // ------------------------------------------------------------------ producer id

  private void maybeInitProducerId(long now) {
    if (initInFlight || !state.canInitProducerId() || now < initRetryAtMs || fatalError != null) {
      return;
    }
    Node node = refresher.leastLoadedNode();
    initInFlight = true;
    network
        .send(
            node,
            ApiKey.INIT_PRODUCER_ID,
            InitProducerIdRequest.getDefaultInstance(),
            settings.requestTimeoutMs())
        .whenComplete(
            (response, error) -> {
              initInFlight = false;
              try (ClientResponse r = response) {
                SpoolException failure =
                    error != null ? MetadataRefresher.asSpoolException(error) : null;
                InitProducerIdResponse body =
                    r == null ? null : r.body(InitProducerIdResponse.class);
                if (failure == null && body.getErrorCode() != ErrorCode.NONE) {
                  failure = new SpoolException(body.getErrorCode(), body.getErrorMessage());
                }
                if (failure == null) {
                  initFailures = 0;
                  state.setProducerId(body.getProducerId(), (short) body.getProducerEpoch());
                } else {
                  onInitFailure(failure);
                }
              }
              runOnce();
            });
  }

  private void onInitFailure(SpoolException failure) {
    if (stopped || network.isClosed()) {
      // The producer is closing: its network client failed the request, the broker said nothing.
      log.debug("InitProducerId abandoned: the producer is closing");
      return;
    }
    if (failure.retriable()) {
      initRetryAtMs = clock.monotonicMs() + settings.retryBackoff().backoffMs(initFailures++);
      if (failure.refreshesMetadata()) {
        metadata.requestUpdate();
      }
      log.debug("InitProducerId failed, retrying: {}", failure.getMessage());
      return;
    }
    fatalError =
        new SpoolException(
            failure.errorCode(),
            "the producer cannot get a producer id: " + failure.getMessage(),
            failure);
    log.error("{}", fatalError.getMessage());
    failEverything(fatalError);
  }

  // ------------------------------------------------------------------ produce

  private void sendProduce(Node node, List<ProducerBatch> batches, MetadataSnapshot md, long now) {
    Map<String, List<ProducerBatch>> byTopic = new LinkedHashMap<>();
    for (ProducerBatch b : batches) {
      byTopic.computeIfAbsent(b.topicPartition.topic(), t -> new ArrayList<>()).add(b);
    }
    ProduceRequest.Builder request =
        ProduceRequest.newBuilder()
            .setAcks(settings.acks())
            .setTimeoutMs((int) Math.min(Integer.MAX_VALUE, settings.requestTimeoutMs()));
    List<ProducerBatch> ordered = new ArrayList<>(batches.size());
    CompositeByteBuf data = Unpooled.compositeBuffer(Math.max(2, batches.size()));
    for (Map.Entry<String, List<ProducerBatch>> e : byTopic.entrySet()) {
      ProduceRequest.TopicData.Builder topic =
          ProduceRequest.TopicData.newBuilder().setName(e.getKey());
      for (ProducerBatch b : e.getValue()) {
        PartitionInfo p = md.partition(b.topicPartition);
        java.nio.ByteBuffer bytes = b.bytes();
        topic.addPartitions(
            ProduceRequest.PartitionData.newBuilder()
                .setPartition(b.topicPartition.partition())
                .setRecordsSize(bytes.remaining())
                .setLeaderEpoch(p == null ? -1 : p.leaderEpoch()));
        data.addComponent(true, Unpooled.wrappedBuffer(bytes));
        ordered.add(b);
      }
      request.addTopics(topic);
    }
    for (ProducerBatch b : ordered) {
      state.onSent(b, node, now);
    }
    boolean expectResponse = settings.acks() != 0;
    network
        .send(
            node,
            ApiKey.PRODUCE,
            request.build(),
            data,
            settings.requestTimeoutMs() + RESPONSE_GRACE_MS,
            expectResponse)
        .whenComplete((response, error) -> onProduceResponse(node, ordered, response, error));
  }

  private void onProduceResponse(
      Node node, List<ProducerBatch> batches, ClientResponse response, Throwable error) {
    long now = clock.monotonicMs();
    try (ClientResponse r = response) {
      if (error != null) {
        onRequestFailure(batches, error, now);
      } else if (r.isNoResponse()) {
        stats.request(r.latencyNs());
        for (ProducerBatch b : batches) {
          state.onResult(b, ErrorCode.NONE, "", -1, -1, now);
        }
      } else {
        stats.request(r.latencyNs());
        onAnswer(node, batches, r.body(ProduceResponse.class), now);
      }
    }
    // Not runOnce(): a send that fails at once would recurse once per batch.
    wakeup();
  }

  private void onRequestFailure(List<ProducerBatch> batches, Throwable error, long now) {
    Throwable cause =
        error instanceof java.util.concurrent.CompletionException && error.getCause() != null
            ? error.getCause()
            : error;
    if (!(cause instanceof SpoolException se)) {
      RuntimeException re =
          cause instanceof RuntimeException rt ? rt : new IllegalStateException(cause);
      for (ProducerBatch b : batches) {
        state.onAborted(b, re);
      }
      return;
    }
    for (ProducerBatch b : batches) {
      state.onResult(b, se.errorCode(), se.getMessage(), -1, -1, now);
    }
    if (se.refreshesMetadata()) {
      metadata.requestUpdate();
    }
  }

  private void onAnswer(Node node, List<ProducerBatch> batches, ProduceResponse body, long now) {
    Map<TopicPartition, ProduceResponse.PartitionResponse> answers = new HashMap<>();
    for (ProduceResponse.TopicResponse t : body.getTopicsList()) {
      for (ProduceResponse.PartitionResponse p : t.getPartitionsList()) {
        answers.put(new TopicPartition(t.getName(), p.getPartition()), p);
      }
    }
    boolean refresh = false;
    boolean notLeader = false;
    for (ProducerBatch b : batches) {
      ProduceResponse.PartitionResponse p = answers.get(b.topicPartition);
      if (p == null) {
        state.onResult(
            b,
            ErrorCode.UNKNOWN_SERVER_ERROR,
            "the broker's produce response has no answer for " + b.topicPartition,
            -1,
            -1,
            now);
        continue;
      }
      if (p.hasCurrentLeader()) {
        metadata.updateLeader(b.topicPartition, p.getCurrentLeader());
      }
      refresh |= Errors.refreshesMetadata(p.getErrorCode());
      notLeader |= p.getErrorCode() == ErrorCode.NOT_LEADER_OR_FOLLOWER && !p.hasCurrentLeader();
      state.onResult(
          b, p.getErrorCode(), p.getErrorMessage(), p.getBaseOffset(), p.getLogAppendTimeMs(), now);
    }
    if (notLeader) {
      // It refused as a leader it no longer is (or cannot be): its own Metadata may be as stale.
      metadata.requestUpdateAvoiding(node.id());
    } else if (refresh) {
      metadata.requestUpdate();
    }
  }

  // ------------------------------------------------------------------ shutdown

  /**
   * Fails every batch still queued or in flight with {@code error} and stops the loop (the end of a
   * close that ran out of time). I/O thread only.
   */
  public void abortAll(RuntimeException error) {
    stopped = true;
    timer.cancel();
    failEverything(error);
  }

  private void failEverything(RuntimeException error) {
    for (ProducerBatch b : accumulator.drainAll()) {
      state.fail(b, error);
    }
    for (ProducerBatch b : state.allInFlight()) {
      state.fail(b, error);
    }
  }
}
